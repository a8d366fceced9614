package extsort

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

// TestEncoderFields checks each field's bytes, worked by hand from the
// varint encoding (7 bits a byte, low first; signed ones zig-zag: -1 is 1,
// 1 is 2), and that they read back.
func TestEncoderFields(t *testing.T) {
	tests := []struct {
		name   string
		encode func(e *Encoder)
		want   []byte
		check  func(d *Decoder) bool
	}{
		{"uvarint 300", func(e *Encoder) { e.Uvarint(300) }, []byte{0xac, 0x02},
			func(d *Decoder) bool { return d.Uvarint() == 300 }},
		{"varint -1", func(e *Encoder) { e.Varint(-1) }, []byte{0x01},
			func(d *Decoder) bool { return d.Varint() == -1 }},
		{"varint 64", func(e *Encoder) { e.Varint(64) }, []byte{0x80, 0x01},
			func(d *Decoder) bool { return d.Varint() == 64 }},
		{"byte", func(e *Encoder) { e.Byte(7) }, []byte{7},
			func(d *Decoder) bool { return d.Byte() == 7 }},
		{"bool", func(e *Encoder) { e.Bool(true); e.Bool(false) }, []byte{1, 0},
			func(d *Decoder) bool { return d.Bool() && !d.Bool() }},
		// big-endian: the most significant byte first, so that records sort by it.
		{"uint64", func(e *Encoder) { e.Uint64(0x0102030405060708) }, []byte{1, 2, 3, 4, 5, 6, 7, 8},
			func(d *Decoder) bool {
				return bytes.Equal([]byte{d.Byte(), d.Byte(), d.Byte(), d.Byte(), d.Byte(), d.Byte(), d.Byte(), d.Byte()}, []byte{1, 2, 3, 4, 5, 6, 7, 8})
			}},
		{"string", func(e *Encoder) { e.String("é,") }, []byte{3, 0xc3, 0xa9, ','},
			func(d *Decoder) bool { return d.Text() == "é," }},
		{"empty string", func(e *Encoder) { e.String("") }, []byte{0},
			func(d *Decoder) bool { return d.Text() == "" }},
		// 1.50 is 150 at exponent -2: flag 0, varint 150 (zig-zag 300), varint -2 (3).
		{"decimal 1.50", func(e *Encoder) { e.Decimal(decimal.RequireFromString("1.50")) }, []byte{0, 0xac, 0x02, 3},
			func(d *Decoder) bool { v := d.Decimal(); return v.String() == "1.5" && v.Exponent() == -2 }},
		// 2^64 is past int64: flag 1, its 20 digits, exponent 0.
		{"decimal past int64", func(e *Encoder) { e.Decimal(decimal.RequireFromString("18446744073709551616")) },
			append(append([]byte{1, 20}, "18446744073709551616"...), 0),
			func(d *Decoder) bool { return d.Decimal().String() == "18446744073709551616" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var e Encoder
			tc.encode(&e)
			if !bytes.Equal(e.Bytes(), tc.want) {
				t.Fatalf("bytes % x, want % x", e.Bytes(), tc.want)
			}
			d := NewDecoder(e.Bytes())
			if !tc.check(d) || d.End() != nil {
				t.Errorf("read back wrong, or %v", d.End())
			}
		})
	}
}

// TestDecoderCutShort: a record cut inside any field is an error, never a
// field short of its bytes; one with bytes left over is one too.
func TestDecoderCutShort(t *testing.T) {
	var e Encoder
	e.Uvarint(1 << 40)
	e.String("abc")
	e.Decimal(decimal.RequireFromString("-123456789012345678901234.5"))
	whole := e.Bytes()
	for n := range len(whole) {
		d := NewDecoder(whole[:n])
		d.Uvarint()
		d.Text()
		d.Decimal()
		if !errors.Is(d.End(), io.ErrUnexpectedEOF) {
			t.Errorf("cut at %d of %d bytes: %v, want io.ErrUnexpectedEOF", n, len(whole), d.End())
		}
	}
	d := NewDecoder(append(whole, 0))
	d.Uvarint()
	d.Text()
	d.Decimal()
	if d.End() == nil {
		t.Error("a byte left over is no error")
	}
}

// TestDecoderCount: a count of items larger than the bytes left is a
// record cut short, not a list made that large.
func TestDecoderCount(t *testing.T) {
	d := NewDecoder([]byte{3, 'a', 'b'})
	if n := d.Count(); n != 0 || !errors.Is(d.Err(), io.ErrUnexpectedEOF) {
		t.Errorf("3 items in 2 bytes: %d, %v", n, d.Err())
	}
	d = NewDecoder([]byte{2, 'a', 'b'})
	if n := d.Count(); n != 2 || d.Err() != nil {
		t.Errorf("2 items in 2 bytes: %d, %v", n, d.Err())
	}
}

// TestDecimalNotAnInteger: a coefficient's text that is not an integer is
// an error.
func TestDecimalNotAnInteger(t *testing.T) {
	d := NewDecoder([]byte{1, 3, '1', '.', '5', 0})
	d.Decimal()
	if d.End() == nil {
		t.Error("coefficient 1.5 read without an error")
	}
}

// TestRecent: a text read again is one of the recent ones, moved first;
// a new one pushes the oldest out.
func TestRecent(t *testing.T) {
	var e Encoder
	for _, s := range []string{"a", "b", "a", "c", "d", "e", "a"} {
		e.String(s)
	}
	d := NewDecoder(e.Bytes())
	var r Recent
	want := []Recent{{"a"}, {"b", "a"}, {"a", "b"}, {"c", "a", "b"}, {"d", "c", "a", "b"}, {"e", "d", "c", "a"}, {"a", "e", "d", "c"}}
	for i, w := range want {
		d.Recent(&r)
		if r != w {
			t.Errorf("after text %d: %q, want %q", i, r, w)
		}
	}
}

// FuzzRecordRoundTrip writes a record of every kind of field and reads it
// back: the same values, the decimal with the same coefficient and
// exponent, and nothing left over.
func FuzzRecordRoundTrip(f *testing.F) {
	f.Add(uint64(0), int64(0), byte(0), "", "0", int32(0))
	f.Add(uint64(math.MaxUint64), int64(math.MinInt64), byte(255), "sk-é\x00", "-99999999999999999999999999", int32(-28))
	f.Add(uint64(300), int64(-1), byte(1), "USD", "9223372036854775808", int32(math.MaxInt32))
	f.Fuzz(func(t *testing.T, u uint64, i int64, c byte, s string, coef string, exp int32) {
		n, ok := new(big.Int).SetString(coef, 10)
		if !ok {
			n = big.NewInt(int64(len(coef)))
		}
		dec := decimal.NewFromBigInt(n, exp)
		var e Encoder
		e.Uvarint(u)
		e.Varint(i)
		e.Byte(c)
		e.String(s)
		e.Decimal(dec)
		d := NewDecoder(e.Bytes())
		gu, gi, gc, gs, gd := d.Uvarint(), d.Varint(), d.Byte(), d.Text(), d.Decimal()
		if err := d.End(); err != nil {
			t.Fatal(err)
		}
		if gu != u || gi != i || gc != c || gs != s {
			t.Errorf("got %d %d %d %q, want %d %d %d %q", gu, gi, gc, gs, u, i, c, s)
		}
		if gd.Coefficient().Cmp(dec.Coefficient()) != 0 || gd.Exponent() != dec.Exponent() {
			t.Errorf("decimal %s (%s e%d), want %s (%s e%d)", gd, gd.Coefficient(), gd.Exponent(), dec, dec.Coefficient(), dec.Exponent())
		}
	})
}

// FuzzDecoder reads arbitrary bytes as a record of every kind of field:
// an error or values, never a panic or a read past the record.
func FuzzDecoder(f *testing.F) {
	f.Add([]byte{0xac, 0x02, 1, 7, 1, 'a', 0, 0xac, 0x02, 3})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{0, 0, 0, 200, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewDecoder(b)
		d.Uvarint()
		d.Varint()
		d.Byte()
		var r Recent
		d.Recent(&r)
		for range d.Count() {
			d.Byte()
		}
		d.Decimal()
		if d.End() == nil && d.Left() != 0 {
			t.Errorf("no error with %d bytes left", d.Left())
		}
	})
}

// TestUvarintIsBinaryUvarint checks the decoder's varints against
// binary.Uvarint: every length from one byte to ten, the bounds of each,
// random values, each followed by bytes with and without their high bit
// and with nothing (a word of eight bytes to read, or fewer), and
// Varint against binary.Varint likewise.
func TestUvarintIsBinaryUvarint(t *testing.T) {
	values := []uint64{0, 1, 127, 128, 255, 16383, 16384, math.MaxUint32, math.MaxInt64, math.MaxUint64}
	for n := 1; n < 64; n++ {
		values = append(values, 1<<n-1, 1<<n, 1<<n+1)
	}
	rng := rand.New(rand.NewPCG(2, 9))
	for range 20000 {
		values = append(values, rng.Uint64()>>uint(rng.IntN(64)))
	}
	for _, v := range values {
		for _, tail := range [][]byte{nil, {0}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, {1, 2, 3, 4, 5, 6, 7, 8}} {
			b := append(binary.AppendUvarint(nil, v), tail...)
			want, n := binary.Uvarint(b)
			d := NewDecoder(b)
			if got := d.Uvarint(); got != want || d.at != n || d.Err() != nil {
				t.Fatalf("Uvarint of % x: %d, %d bytes, %v; want %d, %d bytes", b, got, d.at, d.Err(), want, n)
			}
			s := int64(v)
			b = append(binary.AppendVarint(nil, s), tail...)
			d = NewDecoder(b)
			if got := d.Varint(); got != s || d.Err() != nil {
				t.Fatalf("Varint of % x: %d, %v; want %d", b, got, d.Err(), s)
			}
		}
	}
}

// TestUvarintReadsNoSlack checks varints read from memory with room
// after the record (a run's reader leaves wordSlack): a varint whole in
// the record reads as binary.Uvarint reads it whatever the bytes after,
// and one cut by the record's end is cut short, though its last bytes
// are in the room after.
func TestUvarintReadsNoSlack(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 300, 1 << 20, 1<<49 - 1, 1 << 56, math.MaxUint64} {
		enc := binary.AppendUvarint(nil, v)
		for _, after := range []byte{0, 0x7f, 0x80, 0xff} {
			for n := 0; n <= len(enc); n++ {
				mem := make([]byte, len(enc)+2*wordSlack)
				copy(mem, enc)
				for i := len(enc); i < len(mem); i++ {
					mem[i] = after
				}
				d := NewDecoder(mem[:n])
				got := d.Uvarint()
				switch {
				case n == len(enc) && (got != v || d.Err() != nil || d.Left() != 0):
					t.Errorf("%d whole, then %#x: %d, %v, %d bytes left", v, after, got, d.Err(), d.Left())
				case n < len(enc) && !errors.Is(d.Err(), io.ErrUnexpectedEOF):
					t.Errorf("%d cut at %d of %d bytes, then %#x: %d, %v; want cut short", v, n, len(enc), after, got, d.Err())
				}
			}
		}
	}
}

// TestEncoderVarintsAreBinarys checks that the encoder writes every
// varint as encoding/binary does: unsigned, and signed by zig-zag, on
// both sides of each length (the one-byte path below 128 included),
// the extremes and random values of every length.
func TestEncoderVarintsAreBinarys(t *testing.T) {
	values := []uint64{0, 1, 63, 64, 127, 128, 129, 255, 16383, 16384, math.MaxUint32, math.MaxInt64, math.MaxInt64 + 1, math.MaxUint64}
	for n := 1; n < 64; n++ {
		values = append(values, 1<<n-1, 1<<n, 1<<n+1)
	}
	rng := rand.New(rand.NewPCG(5, 1))
	for range 20000 {
		values = append(values, rng.Uint64()>>uint(rng.IntN(64)))
	}
	var e Encoder
	for _, v := range values {
		e.Reset()
		e.Uvarint(v)
		if want := binary.AppendUvarint(nil, v); !bytes.Equal(e.Bytes(), want) {
			t.Fatalf("Uvarint(%d): % x, want % x", v, e.Bytes(), want)
		}
		for _, s := range []int64{int64(v), -int64(v)} {
			e.Reset()
			e.Varint(s)
			if want := binary.AppendVarint(nil, s); !bytes.Equal(e.Bytes(), want) {
				t.Fatalf("Varint(%d): % x, want % x", s, e.Bytes(), want)
			}
		}
	}
}
