package ledger

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"

	// Decompresses about 1.5 times as fast as compress/gzip, and faster
	// than zcat (bench/results.md).
	"github.com/klauspost/compress/gzip"
)

// Formats a file source detects, as Reader.Format names them. docs/calls.md
// describes each.
const (
	FormatSpendLogCSV     = "litellm-spendlogs-csv"     // LiteLLM_SpendLogs as CSV: table dump or flat export
	FormatSpendLogJSON    = "litellm-spendlogs-json"    // /spend/logs array or /spend/logs/v2 page
	FormatSpendLogJSONL   = "litellm-spendlogs-jsonl"   // one LiteLLM_SpendLogs row object per line
	FormatCLIProxyV6      = "cliproxy-v6-export"        // CLIProxyAPI ≤ v6.9 usage export
	FormatCLIProxyV7JSON  = "cliproxy-v7-records-json"  // CLIProxyAPI v7 usage-queue records, JSON array
	FormatCLIProxyV7JSONL = "cliproxy-v7-records-jsonl" // CLIProxyAPI v7 usage-queue records, one per line
	FormatCanonicalCSV    = "canonical-csv"             // tokenfare's canonical call CSV
	FormatCanonicalJSON   = "canonical-json"            // canonical calls, JSON array
	FormatCanonicalJSONL  = "canonical-jsonl"           // canonical calls, one object per line
	FormatEmpty           = "empty"                     // no bytes, or only blanks: no rows (a day without calls)
)

// Options tune a Reader. The zero value is ready to use.
type Options struct {
	// Workers is the number of goroutines parsing CSV chunks, or the
	// elements of JSON arrays, in parallel; 0 means runtime.GOMAXPROCS(0).
	// JSON lines and CLIProxyAPI v6 exports use one.
	Workers int
	// BatchSize is the most rows one Batch holds; 0 means 4096.
	BatchSize int
	// ChunkSize is the size in bytes of the CSV chunks handed to
	// workers; 0 means 256 KiB. At most about 4×Workers+38 chunks, and
	// the calls of Workers+18 chunks, are in memory at once.
	ChunkSize int
	// SkipHolders are the holders the run reads of no call (it groups by
	// none of them, keeps none apart and has no observer): a reader may
	// then leave them empty. The LiteLLM CSV and JSON readers do, which
	// saves interning up to four columns a row (a key's 64 bytes among
	// them); the other readers fill them anyway. Rows are accepted and rejected
	// alike either way.
	SkipHolders Holders

	maxRecord int // longest CSV record or JSON element before it is declared broken
	// unescapeAll unescapes every quoted CSV field, the JSON the schema
	// reads in place (schema.doubled) too: what that reading is tested
	// against.
	unescapeAll bool
}

// Holders is a set of who a call is charged to, as a run reads them.
type Holders uint8

const (
	HolderKey  Holders = 1 << iota // the call's Key and KeyAlias
	HolderTeam                     // its Team
	HolderUser                     // its User

	AllHolders = HolderKey | HolderTeam | HolderUser
)

// Has reports whether every holder of o is in h.
func (h Holders) Has(o Holders) bool { return h&o == o }

func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 4096
	}
	if o.ChunkSize <= 0 {
		o.ChunkSize = 256 << 10
	}
	if o.maxRecord <= 0 {
		o.maxRecord = max(64<<20, 4*o.ChunkSize)
	}
	return o
}

// peekSize is how much of the input detection looks at.
const peekSize = 64 << 10

// open detects the format of r from its content (never from name) and
// returns a Reader of its calls. Gzip input is decompressed on the fly.
// name is used only in locations ("spend.csv:42") and errors. Reading is
// streaming: memory does not grow with the input, and stops once ctx is
// done. The slices of the Batch passed to Next are recycled and valid
// until the next call.
//
// open refuses aggregate exports (the LiteLLM UI usage export) with
// ErrNoPerCallTimes, unknown content with ErrUnknownFormat, and CSV
// headers lacking a required column with ErrBadHeader, each inside an
// *InputError.
func open(ctx context.Context, name string, r io.Reader, opt Options) (Reader, error) {
	br := bufio.NewReaderSize(&inputReader{ctx: ctx, r: r}, peekSize)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, inputError(name, 0, fmt.Errorf("gzip: %w", err))
		}
		br = bufio.NewReaderSize(zr, peekSize)
	}
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3) // the 3 bytes just peeked: it cannot fail
	}
	head, err := br.Peek(peekSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, inputError(name, 0, err)
	}
	if err := sniffBinary(head); err != nil {
		return nil, inputError(name, 0, err)
	}
	format, err := detect(head)
	if err != nil {
		return nil, inputError(name, 0, err)
	}
	switch format {
	case FormatEmpty:
		return emptyReader{}, nil
	case FormatSpendLogCSV:
		return newCSVReader(name, spendLogSchema, br, opt)
	case FormatCanonicalCSV:
		return newCSVReader(name, canonicalSchema, br, opt)
	case FormatSpendLogJSON:
		return newPushReader(name, format, opt, produceArray(br, opt, schemaRecord(spendLogSchema), spendLogSchema)), nil
	case FormatCanonicalJSON:
		return newPushReader(name, format, opt, produceArray(br, opt, schemaRecord(canonicalSchema), canonicalSchema)), nil
	case FormatCLIProxyV7JSON:
		return newPushReader(name, format, opt, produceArray(br, opt, v7Record, nil)), nil
	case FormatSpendLogJSONL:
		return newPushReader(name, format, opt, produceLines(br, schemaRecord(spendLogSchema))), nil
	case FormatCanonicalJSONL:
		return newPushReader(name, format, opt, produceLines(br, schemaRecord(canonicalSchema))), nil
	case FormatCLIProxyV7JSONL:
		return newPushReader(name, format, opt, produceLines(br, v7Record)), nil
	case FormatCLIProxyV6:
		return newPushReader(name, format, opt, produceV6(br)), nil
	}
	return nil, inputError(name, 0, ErrUnknownFormat)
}

// emptyReader reads an input that holds no rows: an export of a day
// without calls is a file, not an error.
type emptyReader struct{}

func (emptyReader) Next(ctx context.Context, b *Batch) error {
	b.Reset()
	return io.EOF
}
func (emptyReader) Format() string { return FormatEmpty }
func (emptyReader) Close() error   { return nil }

// uiExportHint tells what to export instead of the LiteLLM UI export.
const uiExportHint = "the LiteLLM UI usage export has daily totals, not one row per call with its time; " +
	"export the LiteLLM_SpendLogs table instead (psql: \\copy \"LiteLLM_SpendLogs\" TO 'spend.csv' CSV HEADER) " +
	"or fetch rows from GET /spend/logs/v2"

// summarizedHint tells how to ask /spend/logs for calls instead of totals.
const summarizedHint = "this is a GET /spend/logs answer with summarize=true (its default): spend per day, " +
	"key, user and model, no calls; ask for the calls with " +
	"GET /spend/logs?start_date=YYYY-MM-DD&end_date=YYYY-MM-DD&summarize=false, or use GET /spend/logs/v2"

// detect names the format of the first bytes of an input.
func detect(head []byte) (string, error) {
	t := bytes.TrimLeft(head, " \t\r\n")
	if len(t) == 0 {
		return FormatEmpty, nil
	}
	switch t[0] {
	case '[':
		if _, _, reason := logPrefix(firstLine(t)); reason == "" {
			return "", fmt.Errorf("%w: this is CLIProxyAPI's log, not calls; give it to tokenfare failures with --access-log", ErrUnknownFormat)
		}
		keys := firstKeys(t, true)
		if len(keys) == 0 {
			return FormatSpendLogJSON, nil // empty array, or not objects: rejected row by row
		}
		if keys["starttime"] && keys["spend"] && (keys["users"] || keys["models"]) && !keys["requestid"] {
			return "", fmt.Errorf("%w: %s", ErrNoPerCallTimes, summarizedHint)
		}
		return classify(keys, FormatSpendLogJSON, FormatCLIProxyV7JSON, FormatCanonicalJSON)
	case '{':
		keys := firstKeys(t, false)
		switch {
		case keys["usage"] || keys["apis"]:
			return FormatCLIProxyV6, nil
		case keys["data"] && keys["metadata"]:
			return "", fmt.Errorf("%w: %s", ErrNoPerCallTimes, uiExportHint)
		case keys["data"]:
			return FormatSpendLogJSON, nil
		}
		return classify(keys, FormatSpendLogJSONL, FormatCLIProxyV7JSONL, FormatCanonicalJSONL)
	}
	return detectCSV(t)
}

// firstLine returns t up to its first line break.
func firstLine(t []byte) []byte {
	if i := bytes.IndexByte(t, '\n'); i >= 0 {
		return t[:i]
	}
	return t
}

// classify tells a row object's kind by its keys.
func classify(keys map[string]bool, spendLog, v7, canonical string) (string, error) {
	switch {
	case keys["tokens"] && keys["timestamp"]:
		return v7, nil
	case keys["starttime"]:
		return spendLog, nil
	case keys["start"] && (keys["inputtokens"] || keys["model"]):
		return canonical, nil
	}
	return "", fmt.Errorf("%w: JSON objects without startTime (LiteLLM), timestamp+tokens (CLIProxyAPI) or start+input_tokens (canonical)", ErrUnknownFormat)
}

// firstKeys returns the normalised keys of the first object in t (of its
// first element when inArray), as far as t holds them.
func firstKeys(t []byte, inArray bool) map[string]bool {
	keys := make(map[string]bool)
	dec := json.NewDecoder(bytes.NewReader(t))
	if inArray {
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			return keys
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return keys
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			break
		}
		if s, ok := k.(string); ok {
			keys[normName(s)] = true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
	}
	return keys
}

// detectCSV tells the CSV formats apart by their header line.
func detectCSV(t []byte) (string, error) {
	line := t
	if i := bytes.IndexByte(t, '\n'); i >= 0 {
		line = t[:i]
	}
	var sp splitter
	sp.record(bytes.Clone(line), 0)
	cols := make(map[string]bool, len(sp.fields))
	for _, f := range sp.fields {
		cols[normName(string(f))] = true
	}
	switch {
	case cols["spend($)"] || (cols["date"] && cols["requests"]):
		return "", fmt.Errorf("%w: %s", ErrNoPerCallTimes, uiExportHint)
	case cols["starttime"]:
		return FormatSpendLogCSV, nil
	case cols["start"] && cols["inputtokens"]:
		return FormatCanonicalCSV, nil
	}
	if len(sp.fields) == 1 {
		for _, sep := range []struct{ char, name string }{{";", "semicolons"}, {"\t", "tabs"}} {
			if bytes.Contains(line, []byte(sep.char)) {
				return "", fmt.Errorf("%w: the header is separated by %s; tokenfare reads comma-separated CSV: export it with commas", ErrUnknownFormat, sep.name)
			}
		}
	}
	return "", fmt.Errorf("%w: header has neither startTime (LiteLLM_SpendLogs) nor start and input_tokens (canonical)", ErrUnknownFormat)
}
