package pricing

import (
	"container/heap"
	"io"
)

// runSource yields partial records of type T (groups, charge groups) in
// order: a run read back, or the buckets not spilled.
type runSource[T any] interface {
	next(v *T) (bool, error)
}

// runMerge merges sorted sources of partial records into whole ones, in
// order: a heap of each source's next record, the parts of one record
// (same) summed (add) as they come.
type runMerge[T any] struct {
	heads []runHead[T]
	files []io.ReadCloser // the runs' files, closed by close
	less  func(a, b *T) bool
	same  func(a, b *T) bool
	add   func(s, o *T) // adds part o to s
}

// runHead is a source and its next record.
type runHead[T any] struct {
	v   T
	src runSource[T]
}

// start reads the first record of each of srcs.
func (m *runMerge[T]) start(srcs []runSource[T]) error {
	for _, src := range srcs {
		h := runHead[T]{src: src}
		ok, err := src.next(&h.v)
		if err != nil {
			return err
		}
		if ok {
			m.heads = append(m.heads, h)
		}
	}
	heap.Init(m)
	return nil
}

// next sums the next record, from every source that has part of it, into
// s.
func (m *runMerge[T]) next(s *T) (bool, error) {
	if len(m.heads) == 0 {
		return false, nil
	}
	*s = m.heads[0].v
	if err := m.advance(); err != nil {
		return false, err
	}
	for len(m.heads) > 0 && m.same(&m.heads[0].v, s) {
		m.add(s, &m.heads[0].v)
		if err := m.advance(); err != nil {
			return false, err
		}
	}
	return true, nil
}

// advance reads the next record of the source at the top of the heap.
func (m *runMerge[T]) advance() error {
	h := &m.heads[0]
	var zero T
	h.v = zero
	ok, err := h.src.next(&h.v)
	if err != nil {
		return err
	}
	if ok {
		heap.Fix(m, 0)
	} else {
		heap.Pop(m)
	}
	return nil
}

// close closes the runs' files.
func (m *runMerge[T]) close() error {
	err := closeRuns(m.files)
	m.files = nil
	return err
}

func (m *runMerge[T]) Len() int           { return len(m.heads) }
func (m *runMerge[T]) Swap(i, j int)      { m.heads[i], m.heads[j] = m.heads[j], m.heads[i] }
func (m *runMerge[T]) Less(i, j int) bool { return m.less(&m.heads[i].v, &m.heads[j].v) }
func (m *runMerge[T]) Push(x any)         { m.heads = append(m.heads, x.(runHead[T])) }
func (m *runMerge[T]) Pop() any {
	h := m.heads[len(m.heads)-1]
	m.heads = m.heads[:len(m.heads)-1]
	return h
}
