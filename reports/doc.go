// Package reports renders pricing's typed results for people and programs:
// a reconciliation, a three-way reconciliation with the provider's own
// figures, a blend, the per-call prices of a run and the models of
// a tariff catalog, each as a table, CSV, JSON or YAML. One renderer per
// format serves every command. A month (pricing.Month) renders as the
// FinOps workbook (XLSX, WriteWorkbook) and its charges as a FOCUS 1.2 or
// 1.3 cost and usage CSV (WriteFOCUS); a catalog as a FOCUS SKU Price CSV
// (WriteFOCUSSkuPrice), whose SkuPriceId the cost and usage rows join on.
//
// Domain types carry decimals, enums and times; this package alone turns
// them into text. Nothing it writes is read back by tokenfare.
//
// # Invariants
//
//   - JSON is the stable contract scripts depend on: field names and order
//     do not change, new fields are only added. Money is an exact decimal
//     string with every digit; a ratio that is not defined is "".
//   - YAML is the JSON document in YAML syntax: the same fields in the same
//     order.
//   - CSV keeps every digit of money and carries the currency in a column.
//   - Tables round money to DisplayPlaces decimals for reading; they are not
//     meant for scripts.
//   - A workbook money cell holds its exact amount rounded to 15
//     significant digits (what a spreadsheet number keeps); its Summary
//     also gives the totals as exact text. Text from the data is a text
//     cell, never a formula.
//   - In a FOCUS row ListUnitPrice × PricingQuantity = ListCost exactly, and
//     the rows' ListCost adds up to the month's official cost.
package reports
