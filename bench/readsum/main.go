// Command readsum is the benchmark's floor: it reads a flat LiteLLM spend
// log CSV and sums prompt_tokens, completion_tokens and cached_tokens, and
// does nothing else. It is written the plain way (bufio, split each line on
// commas, strconv), with no parallelism, so that the time tokenfare spends
// above it is the cost of pricing, not of reading.
//
//	go run ./bench/readsum big.csv
//
// It assumes what the generator writes: no quoted field holds a comma.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
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
	defer f.Close()
	return sum(f)
}

var wanted = []string{"prompt_tokens", "completion_tokens", "cached_tokens"}

// sum reads the header to find the three columns, then adds them up line
// by line.
func sum(r io.Reader) (sums, error) {
	sc := bufio.NewScanner(bufio.NewReaderSize(r, 1<<20))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	if !sc.Scan() {
		return sums{}, fmt.Errorf("no header: %v", sc.Err())
	}
	cols, err := columns(sc.Bytes())
	if err != nil {
		return sums{}, err
	}
	var s sums
	var total [3]int64
	line := 1
	for sc.Scan() {
		line++
		fields := bytes.Split(sc.Bytes(), []byte{','})
		for i, c := range cols {
			if c >= len(fields) {
				return s, fmt.Errorf("line %d: %d fields, want more than %d", line, len(fields), c)
			}
			n, err := strconv.ParseInt(string(fields[c]), 10, 64)
			if err != nil {
				return s, fmt.Errorf("line %d: %s: %v", line, wanted[i], err)
			}
			total[i] += n
		}
		s.Rows++
	}
	s.Prompt, s.Completion, s.Cached = total[0], total[1], total[2]
	return s, sc.Err()
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
