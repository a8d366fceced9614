package extsort

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/bits"

	"github.com/shopspring/decimal"
)

// A Codec writes records of type T to a run and reads them back, field by
// field. Decode reads the fields in the order Encode wrote them, writing
// every field of v (a merge reads each run into the same memory again and
// again); an error stays in the Decoder (Decoder.Fail), and fields read
// after it are zero.
type Codec[T any] interface {
	Encode(e *Encoder, v *T)
	Decode(d *Decoder, v *T)
}

// Encoder builds one record's bytes.
type Encoder struct {
	b []byte
}

// NewEncoder returns an encoder appending to b (give it the capacity a
// record is expected to take).
func NewEncoder(b []byte) *Encoder { return &Encoder{b: b} }

// Bytes returns the record built so far.
func (e *Encoder) Bytes() []byte { return e.b }

// Reset starts a new record in the same memory.
func (e *Encoder) Reset() { e.b = e.b[:0] }

// Uvarint appends v as an unsigned varint: a byte below 128, as most of
// a record's numbers are, appended at once.
func (e *Encoder) Uvarint(v uint64) {
	if v < 0x80 {
		e.b = append(e.b, byte(v))
		return
	}
	e.b = binary.AppendUvarint(e.b, v)
}

// Varint appends v as a signed (zig-zag) varint, as binary.AppendVarint
// writes it.
func (e *Encoder) Varint(v int64) { e.Uvarint(uint64(v<<1) ^ uint64(v>>63)) }

// Byte appends c.
func (e *Encoder) Byte(c byte) { e.b = append(e.b, c) }

// Uint64 appends v as 8 bytes, big-endian: records that start with it
// sort by it.
func (e *Encoder) Uint64(v uint64) { e.b = binary.BigEndian.AppendUint64(e.b, v) }

// Bool appends 1 for true, 0 for false.
func (e *Encoder) Bool(v bool) {
	if v {
		e.Byte(1)
	} else {
		e.Byte(0)
	}
}

// String appends s: its length, a uvarint, then its bytes.
func (e *Encoder) String(s string) {
	e.b = append(binary.AppendUvarint(e.b, uint64(len(s))), s...)
}

// Decimal appends d exactly, with its exponent, so that it reads back with
// the same digits: a flag, then the coefficient as a varint (flag 0) or its
// decimal text (flag 1, past int64), then the exponent as a varint.
func (e *Encoder) Decimal(d decimal.Decimal) {
	c := d.Coefficient()
	if c.IsInt64() {
		e.Byte(0)
		e.Varint(c.Int64())
	} else {
		e.Byte(1)
		e.String(c.String())
	}
	e.Varint(int64(d.Exponent()))
}

// Decoder reads the fields of one record from memory. Its first error
// stays (Err), and fields read after it are zero.
type Decoder struct {
	b   []byte // the record
	at  int    // where its next field starts: a place, not the record resliced, so that a field read moves one word
	err error
}

// NewDecoder returns a decoder of record b.
func NewDecoder(b []byte) *Decoder { return &Decoder{b: b} }

// reset starts decoding record b.
func (d *Decoder) reset(b []byte) { d.b, d.at, d.err = b, 0, nil }

// Err returns the first error of the record.
func (d *Decoder) Err() error { return d.err }

// Fail notes err as the record's error, unless it has one already.
func (d *Decoder) Fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// Left returns how many bytes of the record are not read.
func (d *Decoder) Left() int { return len(d.b) - d.at }

// End returns the record's error, or one when bytes are left after its
// last field.
func (d *Decoder) End() error {
	if d.err == nil && d.at < len(d.b) {
		d.err = errors.New("a record longer than its fields")
	}
	return d.err
}

// cut notes a record that ends inside a field.
func (d *Decoder) cut() {
	d.Fail(io.ErrUnexpectedEOF)
	d.at = len(d.b)
}

// wordSlack is the room a run's reader leaves after a record, so that
// a varint near its end is read a word at a time too (Uvarint).
const wordSlack = 8

// Uvarint reads an unsigned varint: one of at most eight bytes, as most
// are, a word at a time (wordUvarint) when the record's memory has eight
// bytes from it (a run's reader leaves wordSlack after each record); the
// bytes past the record are read, never taken.
func (d *Decoder) Uvarint() uint64 {
	if at := d.at; at+8 <= cap(d.b) {
		w := binary.LittleEndian.Uint64(d.b[at : at+8])
		if w&0x80 == 0 && at < len(d.b) {
			d.at = at + 1
			return w & 0x7f
		}
		if w&0x8000 == 0 && at+2 <= len(d.b) { // two bytes, the next most
			d.at = at + 2
			return w&0x7f | w>>1&0x3f80
		}
		if v, n := wordUvarint(w); n > 0 && at+n <= len(d.b) {
			d.at = at + n
			return v
		}
	}
	return d.longUvarint()
}

// longUvarint reads an unsigned varint of any length.
func (d *Decoder) longUvarint() uint64 {
	v, n := binary.Uvarint(d.b[d.at:])
	if n <= 0 {
		d.cut()
		return 0
	}
	d.at += n
	return v
}

// wordUvarint reads the unsigned varint at the start of w, eight bytes
// little-endian, and its length, 0 when it is longer than eight bytes:
// the last byte is the first without its high bit, and the seven-bit
// groups of the bytes up to it are packed by pairs, then fours, then
// eights, where binary.Uvarint shifts them in one by one.
func wordUvarint(w uint64) (uint64, int) {
	stops := ^w & 0x8080808080808080
	if stops == 0 {
		return 0, 0
	}
	n := bits.TrailingZeros64(stops)/8 + 1
	if n < 8 {
		w &= 1<<(8*n) - 1
	}
	w &= 0x7f7f7f7f7f7f7f7f
	w = (w&0x7f007f007f007f00)>>1 | w&0x007f007f007f007f
	w = (w&0x3fff00003fff0000)>>2 | w&0x00003fff00003fff
	w = (w&0x0fffffff00000000)>>4 | w&0x000000000fffffff
	return w, n
}

// Varint reads a signed varint: the zigzag of an unsigned one, as
// encoding/binary writes it (Uvarint's one-byte path: -64 to 63).
func (d *Decoder) Varint() int64 {
	u := d.Uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// Byte reads a byte.
func (d *Decoder) Byte() byte {
	at := d.at
	if uint(at) >= uint(len(d.b)) {
		d.cut()
		return 0
	}
	d.at = at + 1
	return d.b[at]
}

// Bool reads a byte Encoder.Bool wrote: any but 0 is true.
func (d *Decoder) Bool() bool { return d.Byte() != 0 }

// Count reads the number of the items that follow, each of a byte at
// least: more than the bytes left is a record cut short.
func (d *Decoder) Count() int {
	n := d.Uvarint()
	if n > uint64(d.Left()) {
		d.cut()
		return 0
	}
	return int(n)
}

// bytes reads a length-prefixed field, in the record's memory.
func (d *Decoder) bytes() []byte {
	n := d.Uvarint()
	if n > uint64(d.Left()) {
		d.cut()
		return nil
	}
	b := d.b[d.at : d.at+int(n)]
	d.at += int(n)
	return b
}

// Text reads a text Encoder.String wrote.
func (d *Decoder) Text() string { return string(d.bytes()) }

// TextTo reads a text into *last, which is kept when it has the same bytes:
// no string is made then.
func (d *Decoder) TextTo(last *string) {
	if b := d.bytes(); string(b) != *last {
		*last = string(b)
	}
}

// Recent are a field's last values in a run, most recent first: a run's
// records, sorted, repeat their texts (a day's groups come key by key).
type Recent [4]string

// Recent reads a text, one of recent when it has the same bytes (no string
// is made then), and puts it first in recent.
func (d *Decoder) Recent(recent *Recent) string {
	b := d.bytes()
	for i, s := range recent {
		if len(s) == len(b) && s == string(b) {
			copy(recent[1:i+1], recent[:i])
			recent[0] = s
			return s
		}
	}
	s := string(b)
	copy(recent[1:], recent[:len(recent)-1])
	recent[0] = s
	return s
}

// Decimal reads a decimal Encoder.Decimal wrote.
func (d *Decoder) Decimal() decimal.Decimal {
	c := new(big.Int)
	if d.Byte() == 0 {
		c.SetInt64(d.Varint())
	} else if text := d.bytes(); d.err == nil {
		if _, ok := c.SetString(string(text), 10); !ok {
			d.Fail(fmt.Errorf("coefficient %q is not an integer", text))
		}
	}
	return decimal.NewFromBigInt(c, int32(d.Varint()))
}
