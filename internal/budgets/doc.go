// Package budgets reads a budgets file (report --budgets, serve's budget
// metrics; docs/workbook.md, "Budgets") into pricing's typed model, a
// pricing.BudgetPlan. The domain keeps the model and what a month makes
// of it (pricing.Month.Budgets); the file's format lives here, at the
// edge, so that pricing parses no YAML.
//
// # Invariants
//
//   - Amounts are decimals read from the file's text, never through a
//     float, and above zero.
//   - Every problem of a file is reported at once, in an Errors that
//     wraps ErrInvalid, each Error with the file and the line at fault
//     (line 0 when the file as a whole is).
//   - A plan's budgets are in file order, each naming exactly one team,
//     key or tag, none named twice, with Source its file:line.
package budgets
