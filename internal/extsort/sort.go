package extsort

import "sort"

// sortRecords sorts list by compare, which is handed the records in
// place: a record copied to be compared would be copied to the heap, as
// compare is not known to keep no pointer to it.
func sortRecords[T any](list []T, compare func(a, b *T) int) {
	sort.Sort(byCompare[T]{list, compare})
}

// byCompare is a list sorted by compare.
type byCompare[T any] struct {
	list    []T
	compare func(a, b *T) int
}

func (s byCompare[T]) Len() int           { return len(s.list) }
func (s byCompare[T]) Less(i, j int) bool { return s.compare(&s.list[i], &s.list[j]) < 0 }
func (s byCompare[T]) Swap(i, j int)      { s.list[i], s.list[j] = s.list[j], s.list[i] }
