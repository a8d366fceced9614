package extsort

import "slices"

// sortRecords sorts list by compare.
func sortRecords[T any](list []T, compare func(a, b *T) int) {
	slices.SortFunc(list, func(a, b T) int { return compare(&a, &b) })
}
