package extsort

import (
	"errors"
	"io"
	"iter"
)

// A Source yields records in order.
type Source[T any] interface {
	// Next reads the next record into v, writing every field of it (a
	// merge reads each source into memory of its own, again and
	// again); false at the end.
	Next(v *T) (bool, error)
}

// SourceFunc is a function as a Source.
type SourceFunc[T any] func(v *T) (bool, error)

// Next calls f.
func (f SourceFunc[T]) Next(v *T) (bool, error) { return f(v) }

// Slice yields the records of a sorted list, from the first.
func Slice[T any](list []T) Source[T] {
	return SourceFunc[T](func(v *T) (bool, error) {
		if len(list) == 0 {
			return false, nil
		}
		*v = list[0]
		list = list[1:]
		return true, nil
	})
}

// Merge merges sorted sources into one sorted stream, combining the parts
// of one record as they come. It is a Source; Close closes its runs.
// Records that compare equal and are not combined come in no set order.
//
// Each source's next record is read into a record of its own, in the
// heap by pointer: the record at the top is handed out as it is (All)
// and its memory given to the source for its next, where records of
// hundreds of bytes were copied out of the heap, cleared and moved in it.
type Merge[T any] struct {
	q       queue[T]
	files   []io.ReadCloser    // the runs' files, closed by Close
	same    func(a, b *T) bool // nil: no two records are parts of one
	combine func(into, from *T)
	out     *T // the record handed out last, read into again after it
}

// head is a source and its next record.
type head[T any] struct {
	v   *T
	src Source[T]
}

// start reads the first record of each of srcs.
func (m *Merge[T]) start(srcs []Source[T]) error {
	m.out = new(T)
	for _, src := range srcs {
		h := head[T]{v: new(T), src: src}
		ok, err := src.Next(h.v)
		if err != nil {
			return err
		}
		if ok {
			m.q.heads = append(m.q.heads, h)
		}
	}
	m.q.init()
	return nil
}

// Next reads the next record into v, combined from every source that has
// a part of it; false at the end.
func (m *Merge[T]) Next(v *T) (bool, error) {
	p, err := m.next()
	if p == nil || err != nil {
		return false, err
	}
	*v = *p
	return true, nil
}

// next returns the next record, combined from every source that has a
// part of it, valid until the next call; nil at the end. The record
// handed out before is read into: it is the top source's next.
func (m *Merge[T]) next() (*T, error) {
	if len(m.q.heads) == 0 {
		return nil, nil
	}
	out := m.q.heads[0].v
	m.q.heads[0].v, m.out = m.out, out
	if err := m.advance(); err != nil {
		return nil, err
	}
	for m.same != nil && len(m.q.heads) > 0 && m.same(m.q.heads[0].v, out) {
		m.combine(out, m.q.heads[0].v)
		if err := m.advance(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// All yields the merged records in order, each valid until the next, and
// last, with nil, the error of reading them, if any. The merge is closed
// however the loop ends (a loop left early included): range over it once.
func (m *Merge[T]) All() iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		defer func() { _ = m.Close() }() // runs opened for reading: closing them loses nothing
		for {
			v, err := m.next()
			if err != nil {
				yield(nil, err)
				return
			}
			if v == nil || !yield(v, nil) {
				return
			}
		}
	}
}

// advance reads the next record of the source at the top of the heap.
func (m *Merge[T]) advance() error {
	h := &m.q.heads[0]
	ok, err := h.src.Next(h.v)
	if err != nil {
		return err
	}
	if ok {
		m.q.down(0)
	} else {
		m.q.pop()
	}
	return nil
}

// Close closes the runs' files.
func (m *Merge[T]) Close() error {
	err := closeAll(m.files)
	m.files = nil
	return err
}

// closeAll closes files, joining their errors.
func closeAll(files []io.ReadCloser) error {
	var err error
	for _, f := range files {
		err = errors.Join(err, f.Close())
	}
	return err
}

// queue is the heap of the sources' next records, least first: a binary
// heap as container/heap keeps one, its moves the same, with compare
// called where Less was called through an interface.
type queue[T any] struct {
	heads   []head[T]
	compare func(a, b *T) int
}

// init orders the heads into a heap.
func (q *queue[T]) init() {
	for i := len(q.heads)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

// down moves the head at i down to its place below.
func (q *queue[T]) down(i int) {
	h := q.heads
	for {
		j := 2*i + 1
		if j >= len(h) || j < 0 {
			return
		}
		if r := j + 1; r < len(h) && q.compare(h[r].v, h[j].v) < 0 {
			j = r
		}
		if q.compare(h[j].v, h[i].v) >= 0 {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// pop removes the head at the top.
func (q *queue[T]) pop() {
	n := len(q.heads) - 1
	q.heads[0], q.heads[n] = q.heads[n], q.heads[0]
	q.heads[n] = head[T]{}
	q.heads = q.heads[:n]
	q.down(0)
}
