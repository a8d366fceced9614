package extsort

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
)

// bufSize is the size of a run's buffer, read or written.
const bufSize = 64 << 10

// runWriter writes the records of a run, each its length and its bytes.
type runWriter[T any] struct {
	w     *bufio.Writer
	codec Codec[T]
	enc   Encoder
	n     int64 // records written
	bytes int64 // bytes written
}

// write writes record v. A failed write shows at flush.
func (w *runWriter[T]) write(v *T) {
	w.enc.Reset()
	w.codec.Encode(&w.enc, v)
	b := w.enc.Bytes()
	// The length and the bytes appended to the buffer's room: one copy
	// and one Write.
	rec := binary.AppendUvarint(w.w.AvailableBuffer(), uint64(len(b)))
	rec = append(rec, b...)
	w.w.Write(rec)
	w.n++
	w.bytes += int64(len(rec))
}

// runReader reads the records of a run back.
type runReader[T any] struct {
	r     *bufio.Reader
	codec Codec[T]
	buf   []byte // the record being read
	dec   Decoder
}

// newRunReader reads run r with codec.
func newRunReader[T any](r io.Reader, codec Codec[T]) *runReader[T] {
	return &runReader[T]{r: bufio.NewReaderSize(r, bufSize), codec: codec}
}

// Next reads the next record into v; false at the end of the run.
func (r *runReader[T]) Next(v *T) (bool, error) {
	if ok, err := r.record(); !ok || err != nil {
		return false, err
	}
	r.codec.Decode(&r.dec, v)
	if err := r.dec.End(); err != nil {
		return false, err
	}
	return true, nil
}

// record reads the next record's bytes into the decoder; false at the end
// of the run. A record the buffer holds is decoded where it lies, until
// the next record is read (the decoder copies what it keeps); a longer
// one is copied out first.
func (r *runReader[T]) record() (bool, error) {
	head, err := r.r.Peek(binary.MaxVarintLen64)
	if len(head) == 0 {
		if err == io.EOF {
			return false, nil
		}
		return false, err
	}
	n, k := binary.Uvarint(head)
	switch {
	case k == 0: // the run ends inside the length, or the read failed
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return false, noEOF(err)
	case k < 0:
		return false, errors.New("a record's length overflows 64 bits")
	case n > 1<<31:
		return false, errors.New("a record longer than 2 GiB")
	}
	_, _ = r.r.Discard(k) // k bytes are buffered: Peek returned them
	if n <= bufSize {
		b, err := r.r.Peek(int(n))
		if len(b) < int(n) {
			return false, noEOF(err)
		}
		_, _ = r.r.Discard(int(n))
		r.dec.reset(b)
		return true, nil
	}
	if uint64(cap(r.buf)) < n+wordSlack {
		r.buf = make([]byte, n, n+wordSlack)
	}
	r.buf = r.buf[:n]
	if _, err := io.ReadFull(r.r, r.buf); err != nil {
		return false, noEOF(err)
	}
	r.dec.reset(r.buf)
	return true, nil
}

// noEOF turns the end of a run inside a record into an error of its own.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
