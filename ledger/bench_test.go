package ledger

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"testing"
)

// writeFlatCSV writes n rows of a realistic flat LiteLLM_SpendLogs export
// (about 330 bytes a row), api_base last.
func writeFlatCSV(w io.Writer, n int) {
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	bw.WriteString("request_id,startTime,endTime,completionStartTime,api_key,key_alias,team_id,team_alias,user,model,model_group,model_id,custom_llm_provider,status,spend,prompt_tokens,completion_tokens,cached_tokens,cache_creation_tokens,reasoning_tokens,api_base\n")
	models := []string{"deepseek/deepseek-flash,deepseek-flash,ds-direct,deepseek", "gpt-4o,gpt-4o,gpt4o-east,azure", "claude-sonnet-4-5,claude,claude-dep,anthropic"}
	bases := []string{"https://api.deepseek.com", "https://myco.openai.azure.com/", "https://api.anthropic.com"}
	for i := range n {
		key := fmt.Sprintf("%064x", i%97)
		sec := i % 86400
		prompt := 100 + i%5000
		cached := prompt / 3
		fmt.Fprintf(bw, "chatcmpl-%016x%08x,2026-09-01 %02d:%02d:%02d.%03d,2026-09-01 %02d:%02d:%02d.999,,%s,alias-%d,team-%d,,user-%d,%s,success,%d.%06de-05,%d,%d,%d,0,%d,%s\n",
			uint64(i)*2654435761, i,
			sec/3600, sec/60%60, sec%60, i%999, sec/3600, sec/60%60, sec%60, // ends after it starts
			key, i%97, i%13, i%211, models[i%3], i%9, i%1000000, prompt, 10+i%700, cached, i%10, bases[i%3])
	}
}

// BenchmarkReadLiteLLMCSV reads a flat LiteLLM export through the whole
// reader, summing tokens so nothing is optimised away. workers=0 is the
// default (GOMAXPROCS).
func BenchmarkReadLiteLLMCSV(b *testing.B) {
	const rows = 200000
	var buf bytes.Buffer
	writeFlatCSV(&buf, rows)
	data := buf.Bytes()
	for _, workers := range []int{0, 1} {
		b.Run(fmt.Sprintf("rows=%d/workers=%d", rows, workers), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			m := mallocs()
			for b.Loop() {
				readBench(b, data, Options{Workers: workers}, rows)
			}
			b.ReportMetric(float64(mallocs()-m)/float64(b.N)/rows, "allocs/row")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
		})
	}
}

// mallocs returns the heap allocations made so far.
func mallocs() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs
}

func readBench(b *testing.B, data []byte, opt Options, rows int) {
	r, err := open(context.Background(), "bench.csv", bytes.NewReader(data), opt)
	if err != nil {
		b.Fatal(err)
	}
	var batch Batch
	var sum int64
	n := 0
	for {
		err := r.Next(context.Background(), &batch)
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		n += len(batch.Calls)
		for i := range batch.Calls {
			sum += batch.Calls[i].Tokens.Total()
		}
	}
	if n != rows || sum == 0 {
		b.Fatalf("read %d calls, want %d", n, rows)
	}
}

// BenchmarkBaselineSumColumns is the yardstick: a plain program that
// reads the same file and sums three integer columns.
func BenchmarkBaselineSumColumns(b *testing.B) {
	const rows = 200000
	var buf bytes.Buffer
	writeFlatCSV(&buf, rows)
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		sc.Scan()
		var sum int64
		for sc.Scan() {
			line := sc.Bytes()
			for col := 0; len(line) > 0; col++ {
				i := bytes.IndexByte(line, ',')
				f := line
				if i >= 0 {
					f, line = line[:i], line[i+1:]
				} else {
					line = nil
				}
				if col == 15 || col == 16 || col == 17 {
					n, _ := strconv.ParseInt(string(f), 10, 64)
					sum += n
				}
			}
		}
		if sum == 0 {
			b.Fatal("no sum")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
}

// BenchmarkSplitInto splits the lines of a flat export into their
// columns, as the reader's workers do.
func BenchmarkSplitInto(b *testing.B) {
	var buf bytes.Buffer
	writeFlatCSV(&buf, 1000)
	data := buf.Bytes()
	var v rowFields
	pos := make([]int, 21) // every column of writeFlatCSV
	for i := range pos {
		pos[i] = i
	}
	sp := splitter{dst: &v, pos: pos, noQuote: true}
	v.data = data
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		for at := 0; at < len(data); {
			next, _, _, _ := sp.record(data, at)
			if sp.n != len(pos) {
				b.Fatalf("%d fields", sp.n)
			}
			at = next
		}
	}
}

// BenchmarkRowEssentials times the field conversions no pricing of a row
// can skip, on fields already split: its start and end instants, its
// spend, three token counts and the hash of its request id for the
// duplicate check. With the floor (BenchmarkBaselineSumColumns, or
// bench/readsum), it bounds from below what reading a row for pricing
// costs.
func BenchmarkRowEssentials(b *testing.B) {
	const rows = 200000
	var buf bytes.Buffer
	writeFlatCSV(&buf, rows)
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))[1:]
	fields := make([][][]byte, len(lines))
	for i, l := range lines {
		fields[i] = bytes.Split(l, []byte(","))
	}
	var dates [2]dateCache
	var sink int64
	for b.Loop() {
		for _, f := range fields {
			start, ok1 := parseTime(f[1], &dates[0])
			end, ok2 := parseTime(f[2], &dates[1])
			spend, ok3 := parseAmount(f[14])
			p, ok4 := parseInt(f[15])
			c, ok5 := parseInt(f[16])
			r, ok6 := parseInt(f[17])
			if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
				b.Fatalf("row %q does not parse", bytes.Join(f, []byte(",")))
			}
			sink += start.UnixNano() ^ end.UnixNano() + spend.coef + p + c + r + int64(HashIdentityBytes(f[0]))
		}
	}
	if sink == 0 {
		b.Fatal("nothing read")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
}
