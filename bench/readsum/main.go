// Command readsum is the benchmark's floor: it reads a flat LiteLLM spend
// log CSV and sums prompt_tokens, completion_tokens and cached_tokens, and
// does nothing else. It is the leanest honest reading: one goroutine,
// bufio.Reader.ReadSlice('\n'), a byte scan for commas eight bytes at a
// time (one 64-bit word: faster here than bytes.IndexByte, whose vector
// setup costs more than the short fields between commas), the three
// integer columns summed with a hand-rolled digit loop; no strconv, no
// Scanner, no allocation per line. The scan looks at each byte once, for a
// comma only, and stops after the last column it needs. The time tokenfare spends above
// it is the cost of pricing, not of reading.
//
//	go run ./bench/readsum big.csv
//
// It assumes what the generator writes: no quoted field holds a comma or a
// line break, and no line is longer than the 1 MiB buffer.
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"os"
	"slices"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: readsum FILE.csv")
		os.Exit(2)
	}
	s, err := sumFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "readsum:", err)
		os.Exit(1)
	}
	fmt.Printf("rows=%d prompt_tokens=%d completion_tokens=%d cached_tokens=%d\n",
		s.Rows, s.Prompt, s.Completion, s.Cached)
}

// sums are the totals readsum prints.
type sums struct {
	Rows, Prompt, Completion, Cached int64
}

func sumFile(path string) (sums, error) {
	f, err := os.Open(path)
	if err != nil {
		return sums{}, err
	}
	defer func() { _ = f.Close() }() // read only: closing it loses nothing
	return sum(f)
}

var wanted = []string{"prompt_tokens", "completion_tokens", "cached_tokens"}

var nl, cr = []byte{'\n'}, []byte{'\r'}

// sum reads the header to find the three columns, then adds them up line
// by line.
func sum(r io.Reader) (sums, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	header, err := br.ReadSlice('\n')
	if len(header) == 0 {
		return sums{}, fmt.Errorf("no header: %v", err)
	}
	cols, err := columns(bytes.TrimRight(header, "\r\n"))
	if err != nil {
		return sums{}, err
	}
	// want[f] is 1+i when field f is the i-th wanted column, else 0.
	last := slices.Max(cols)
	want := make([]int, last+1)
	for i, c := range cols {
		want[c] = 1 + i
	}
	var s sums
	var total [3]int64
	for lineNo := 2; ; lineNo++ {
		b, err := br.ReadSlice('\n')
		if len(b) == 0 {
			if err == io.EOF {
				break
			}
			return s, err
		}
		line := bytes.TrimSuffix(bytes.TrimSuffix(b, nl), cr)
		field, start, found := 0, 0, 0
	scan:
		for off := 0; off < len(line); off += 8 {
			for z := commas(word(line[off:])); z != 0; z &= z - 1 {
				i := off + bits.TrailingZeros64(z)>>3
				if w := want[field]; w > 0 {
					n, ok := digits(line[start:i])
					if !ok {
						return s, fmt.Errorf("line %d: %s %q is not an integer", lineNo, wanted[w-1], line[start:i])
					}
					total[w-1] += n
					found++
				}
				field++
				start = i + 1
				if field > last {
					break scan
				}
			}
		}
		if field == last { // the last wanted column ends the line
			w := want[field]
			n, ok := digits(line[start:])
			if !ok {
				return s, fmt.Errorf("line %d: %s %q is not an integer", lineNo, wanted[w-1], line[start:])
			}
			total[w-1] += n
			found++
		}
		if found != len(cols) {
			return s, fmt.Errorf("line %d: %d fields, want more than %d", lineNo, field+1, last)
		}
		s.Rows++
	}
	s.Prompt, s.Completion, s.Cached = total[0], total[1], total[2]
	return s, nil
}

// word returns the first eight bytes of b as a little-endian word, the
// missing ones zero when b is shorter.
func word(b []byte) uint64 {
	if len(b) >= 8 {
		return binary.LittleEndian.Uint64(b)
	}
	var w uint64
	for i, c := range b {
		w |= uint64(c) << (8 * i)
	}
	return w
}

// commas returns a word with the high bit set in each byte of w that is a
// comma, and only there: w XORed with eight commas has a zero byte there,
// and adding 0x7F to the low seven bits of a byte carries into its high bit
// unless they are all zero, never into the next byte.
func commas(w uint64) uint64 {
	const lo, low7 = 0x0101010101010101, 0x7F7F7F7F7F7F7F7F
	y := w ^ (lo * ',')
	return ^(((y & low7) + low7) | y | low7)
}

// digits reads a non-negative decimal integer, one digit at a time.
func digits(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// columns finds the index of each wanted column in the header line.
func columns(header []byte) ([]int, error) {
	names := bytes.Split(header, []byte{','})
	cols := make([]int, len(wanted))
	for i, w := range wanted {
		cols[i] = -1
		for j, name := range names {
			if string(name) == w {
				cols[i] = j
			}
		}
		if cols[i] < 0 {
			return nil, fmt.Errorf("header has no %s column", w)
		}
	}
	return cols, nil
}
