package ledger

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"testing"
	"time"
)

// The same calls in the shapes LiteLLM's rows come in: writeFlatCSV's
// flat export, and from its lines the table dump (token split, aliases
// and team in the metadata JSON column, every other column of the table
// beside) and the /spend/logs JSON answer (an array of row objects).

// Columns of writeFlatCSV's lines.
const (
	fcID, fcStart, fcEnd, fcFirst, fcKey, fcAlias, fcTeam, fcTeamAlias, fcUser = 0, 1, 2, 3, 4, 5, 6, 7, 8
	fcModel, fcGroup, fcDep, fcProvider, fcStatus, fcSpend                     = 9, 10, 11, 12, 13, 14
	fcPrompt, fcCompletion, fcCached, fcWrite, fcReasoning, fcBase             = 15, 16, 17, 18, 19, 20
)

// flatRows returns the split lines of writeFlatCSV's n rows.
func flatRows(n int) [][][]byte {
	var buf bytes.Buffer
	writeFlatCSV(&buf, n)
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))[1:]
	rows := make([][][]byte, len(lines))
	for i, l := range lines {
		rows[i] = bytes.Split(l, []byte(","))
	}
	return rows
}

// dumpMetadata appends a row's metadata JSON as LiteLLM keeps it, in
// jsonb's key order and spacing; q is the quote as the shape writes it
// ("" inside a CSV field).
func dumpMetadata(b []byte, f [][]byte, q string) []byte {
	member := func(name string, v []byte, last bool) {
		b = append(append(append(append(append(append(b, q...), name...), q...), ": "...), q...), v...)
		b = append(b, q...)
		if !last {
			b = append(b, ", "...)
		}
	}
	b = append(b, '{')
	member("status", f[fcStatus], false)
	member("user_api_key", f[fcKey], false)
	member("user_api_key_alias", f[fcAlias], false)
	member("user_api_key_team_id", f[fcTeam], false)
	member("user_api_key_user_id", f[fcUser], false)
	b = append(b, q+"additional_usage_values"+q+": {"+q+"prompt_tokens_details"+q+": {"+q+"cached_tokens"+q+": "...)
	b = append(append(b, f[fcCached]...), ", "+q+"cache_creation_tokens"+q+": "...)
	b = append(append(b, f[fcWrite]...), "}, "+q+"completion_tokens_details"+q+": {"+q+"reasoning_tokens"+q+": "...)
	b = append(append(b, f[fcReasoning]...), "}}, "...)
	member("user_api_key_team_alias", f[fcTeam], true)
	return append(b, '}')
}

// writeDumpCSV writes writeFlatCSV's calls as a LiteLLM_SpendLogs table
// dump (the columns of cmd/tokenfare-gen -format dump).
func writeDumpCSV(w io.Writer, rows [][][]byte) {
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	bw.WriteString("request_id,call_type,api_key,spend,total_tokens,prompt_tokens,completion_tokens,startTime,endTime,completionStartTime,request_duration_ms,model,model_id,model_group,custom_llm_provider,api_base,user,metadata,cache_hit,cache_key,request_tags,team_id,organization_id,end_user,requester_ip_address,messages,response,session_id,status,mcp_namespaced_tool_name,agent_id,proxy_server_request\n")
	var b []byte
	for i, f := range rows {
		b = b[:0]
		for _, c := range [][]byte{f[fcID], []byte("acompletion"), f[fcKey], f[fcSpend], total(f), f[fcPrompt], f[fcCompletion],
			f[fcStart], f[fcEnd], f[fcFirst], []byte("1000"), f[fcModel], f[fcDep], f[fcGroup], f[fcProvider], f[fcBase], f[fcUser]} {
			b = append(append(b, c...), ',')
		}
		b = append(dumpMetadata(append(b, '"'), f, `""`), `",False,Cache OFF,"[""User-Agent: OpenAI/Python 1.109.1""]",`...)
		b = fmt.Appendf(b, "%s,,,10.20.1.%d,{},{},%08x-0a62-46f0-9a2e-93f599aa750a,%s,,,{}\n", f[fcTeam], i%200, i, f[fcStatus])
		bw.Write(b)
	}
}

// writeSpendLogsJSON writes writeFlatCSV's calls as GET /spend/logs
// answers them: an array of row objects, compact, one a line.
func writeSpendLogsJSON(w io.Writer, rows [][][]byte) {
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	bw.WriteString("[")
	var b []byte
	for i, f := range rows {
		b = append(b[:0], "\n"...)
		if i > 0 {
			b = append(b[:0], ",\n"...)
		}
		b = fmt.Appendf(b, `{"request_id":%q,"call_type":"acompletion","api_key":%q,"spend":%s,"total_tokens":%s,"prompt_tokens":%s,"completion_tokens":%s,`,
			f[fcID], f[fcKey], f[fcSpend], total(f), f[fcPrompt], f[fcCompletion])
		b = fmt.Appendf(b, `"startTime":%q,"endTime":%q,"completionStartTime":null,"request_duration_ms":1000,"model":%q,"model_id":%q,"model_group":%q,"custom_llm_provider":%q,"api_base":%q,"user":%q,"metadata":`,
			f[fcStart], f[fcEnd], f[fcModel], f[fcDep], f[fcGroup], f[fcProvider], f[fcBase], f[fcUser])
		b = dumpMetadata(b, f, `"`)
		b = fmt.Appendf(b, `,"cache_hit":"False","cache_key":"Cache OFF","request_tags":["User-Agent: OpenAI/Python 1.109.1"],"team_id":%q,"organization_id":null,"end_user":null,"requester_ip_address":"10.20.1.%d","messages":{},"response":{},"session_id":"%08x-0a62-46f0-9a2e-93f599aa750a","status":%q,"mcp_namespaced_tool_name":null,"agent_id":null,"proxy_server_request":{}}`,
			f[fcTeam], i%200, i, f[fcStatus])
		bw.Write(b)
	}
	bw.WriteString("\n]\n")
}

// total is a row's total_tokens.
func total(f [][]byte) []byte {
	p, _ := strconv.Atoi(string(f[fcPrompt]))
	c, _ := strconv.Atoi(string(f[fcCompletion]))
	return strconv.AppendInt(nil, int64(p+c), 10)
}

// readShape reads data whole with one worker and returns the calls' token
// total and the heap allocations made.
func readShape(b *testing.B, name string, data []byte, rows int) (sum int64, allocs uint64) {
	m := mallocs()
	r, err := open(context.Background(), name, bytes.NewReader(data), Options{Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var batch Batch
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
	if n != rows {
		b.Fatalf("%s: read %d calls, want %d", name, n, rows)
	}
	return sum, mallocs() - m
}

// pairedRead reads the flat export and another shape of the same calls in
// turn, and reports the other's time a byte against the flat one's: on a
// shared machine both reads of a pair see the same load.
func pairedRead(b *testing.B, rows int, name string, data, flat []byte) {
	b.ReportAllocs()
	var tShape, tFlat time.Duration
	var allocs uint64
	for b.Loop() {
		t0 := time.Now()
		want, _ := readShape(b, "bench.csv", flat, rows)
		t1 := time.Now()
		got, a := readShape(b, name, data, rows)
		tShape, tFlat, allocs = tShape+time.Since(t1), tFlat+t1.Sub(t0), allocs+a
		if got != want {
			b.Fatalf("%s: %d tokens, the flat export %d", name, got, want)
		}
	}
	n := float64(b.N)
	perByte := float64(tShape.Nanoseconds()) / n / float64(len(data))
	flatPerByte := float64(tFlat.Nanoseconds()) / n / float64(len(flat))
	b.ReportMetric(float64(tShape.Nanoseconds())/n/float64(rows), "ns/row")
	b.ReportMetric(float64(tFlat.Nanoseconds())/n/float64(rows), "flat-ns/row")
	b.ReportMetric(perByte/flatPerByte, "x-flat/byte")
	b.ReportMetric(float64(allocs)/n/float64(rows), "allocs/row")
}

// BenchmarkReadDump reads a LiteLLM table dump against the flat export
// of the same calls (x-flat/byte: the dump's time a byte over the flat
// export's, read in turn).
func BenchmarkReadDump(b *testing.B) {
	const rows = 100000
	flatRowsData := flatRows(rows)
	var flat, dump bytes.Buffer
	writeFlatCSV(&flat, rows)
	writeDumpCSV(&dump, flatRowsData)
	b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
		pairedRead(b, rows, "dump.csv", dump.Bytes(), flat.Bytes())
	})
}

// BenchmarkReadSpendLogsJSON reads the /spend/logs JSON answer against
// the flat export of the same calls.
func BenchmarkReadSpendLogsJSON(b *testing.B) {
	const rows = 100000
	var flat, js bytes.Buffer
	writeFlatCSV(&flat, rows)
	writeSpendLogsJSON(&js, flatRows(rows))
	b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
		pairedRead(b, rows, "spendlogs.json", js.Bytes(), flat.Bytes())
	})
}

// BenchmarkFrameSpendLogs times the framer's own work on the /spend/logs
// JSON answer, on one goroutine: checking each element and noting its
// members and metadata (frameObject), as arrayFramer.scan does, without
// the reads and the hand-over to the workers.
func BenchmarkFrameSpendLogs(b *testing.B) {
	const rows = 20000
	var js bytes.Buffer
	writeSpendLogsJSON(&js, flatRows(rows))
	data := js.Bytes()
	var ms []frameMember
	var metas []framedMeta
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		s := jsonScanner{b: data}
		s.space()
		s.open()
		s.space()
		n := 0
		for s.peek() == '{' {
			ok := false
			if ms, ok = s.frameObject(ms[:0], &metas); !ok {
				b.Fatalf("element %d: %s", n, s.err)
			}
			metas = metas[:0]
			n++
			s.space()
			if s.peek() == ',' {
				s.i++
				s.space()
			}
		}
		if n != rows {
			b.Fatalf("%d elements, want %d", n, rows)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/element")
}
