package ledger

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// AccessLine is one request line of CLIProxyAPI's access log: what the
// gateway answered the client, whoever served it. The line carries no
// key, model or tokens; its request id joins it to the usage records of
// the same request (docs/calls.md, "CLIProxyAPI access log").
type AccessLine struct {
	// Kind tells a request line from an upstream-failure line.
	Kind      AccessKind
	Line      int    // 1-based line in the file
	RequestID string // "" where the log shows "--------" (routes outside the AI API)
	// End is when the line was logged, as the request ended: the log's
	// local wall time read in the zone given, to the second. Start is End
	// less the latency.
	End, Start time.Time
	Latency    time.Duration
	Status     int
	Method     string // request lines
	Path       string // without the query; request lines
	Client     string // the client's address; request lines
	// Upstream-failure lines: the provider and upstream model called, the
	// credential as the log masks it, and the start of the error text.
	// Latency is the attempt's duration.
	Provider, Model, Auth, Text string
}

// AccessKind is the kind of a line ReadAccessLog passes on.
type AccessKind uint8

// Kinds of access-log lines.
const (
	// AccessRequest: what the client was answered (GinLogrusLogger).
	AccessRequest AccessKind = iota
	// AccessUpstreamFailure: one attempt at a provider failed
	// (warnLogUpstreamFailure, sdk/cliproxy/auth/conductor_execution.go),
	// logged at warn level whether usage statistics are on or off.
	AccessUpstreamFailure
)

// Route returns "METHOD /path", as CLIProxyAPI's usage records name the
// endpoint.
func (a *AccessLine) Route() string { return a.Method + " " + a.Path }

// AccessRows accounts for the lines of an access log: every line is a
// request line, another log entry, blank, or rejected with its reason.
type AccessRows struct {
	Requests int64 // request lines read
	Upstream int64 // upstream-failure lines read
	Other    int64 // log entries of other kinds (startup, warnings): not requests
	Rejected []Rejection
}

// maxLogLine bounds one log line: a request line is a few hundred bytes,
// an upstream failure's a few kilobytes at most.
const maxLogLine = 16 << 20

// accessLogger is the source file whose lines are request lines
// (internal/logging/gin_logger.go, GinLogrusLogger).
const accessLogger = "gin_logger.go"

// ReadAccessLog reads a CLIProxyAPI log (main.log, or the server's
// standard error) and calls each for every request line. loc is the zone
// the server wrote its wall times in (the log names none). A line logged
// by the request logger that does not read as a request line is rejected
// with its line; lines of other entries are counted, never parsed. An
// error from each, ctx or the reader stops the read.
func ReadAccessLog(ctx context.Context, name string, r io.Reader, loc *time.Location, each func(*AccessLine) error) (AccessRows, error) {
	var rows AccessRows
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLogLine)
	n := 0
	for sc.Scan() {
		n++
		if n%4096 == 0 && ctx.Err() != nil {
			return rows, ctx.Err()
		}
		line := bytes.TrimRight(sc.Bytes(), "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		a, ok, reason := parseAccessLine(line, loc)
		switch {
		case reason != "":
			rows.Rejected = append(rows.Rejected, Rejection{File: name, Line: n, Reason: reason})
		case !ok:
			rows.Other++
		default:
			a.Line = n
			if a.Kind == AccessUpstreamFailure {
				rows.Upstream++
			} else {
				rows.Requests++
			}
			if err := each(&a); err != nil {
				return rows, err
			}
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return rows, inputError(name, n+1, fmt.Errorf("a line is longer than %d MiB: not a log line", maxLogLine>>20))
	} else if err != nil {
		return rows, inputError(name, 0, fmt.Errorf("%w: %w", ErrRead, err))
	}
	return rows, ctx.Err()
}

// parseAccessLine reads one log line. ok is false for an entry that is
// not a request line; reason says why a line that should be one is not,
// or why the line is no CLIProxyAPI log line at all.
func parseAccessLine(line []byte, loc *time.Location) (a AccessLine, ok bool, reason string) {
	// [2026-08-22 14:03:11] [a1b2c3d4] [info ] [gin_logger.go:97] 200 | ...
	fields, rest, bad := logPrefix(line)
	if bad != "" {
		return a, false, bad
	}
	caller := ""
	if len(fields) == 4 {
		caller, _, _ = strings.Cut(fields[3], ":")
	}
	msg := strings.TrimSpace(string(rest))
	if (caller == "" || caller == upstreamLogger) && strings.HasPrefix(msg, upstreamMark) {
		return parseUpstreamFailure(fields, msg, loc)
	}
	req, why := parseRequestMessage(msg)
	switch {
	case why != "" && caller == accessLogger:
		return a, false, why
	case why != "":
		return a, false, "" // another entry, or one without its caller
	case caller != "" && caller != accessLogger:
		return a, false, ""
	}
	end, err := time.ParseInLocation("2006-01-02 15:04:05", fields[0], loc)
	if err != nil {
		return a, false, badValue("time", fields[0], "a time as YYYY-MM-DD HH:MM:SS")
	}
	req.End = end.UTC()
	req.Start = req.End.Add(-req.Latency)
	if id := fields[1]; strings.Trim(id, "-") != "" {
		req.RequestID = id
	}
	return req, true, ""
}

// upstreamLogger and upstreamMark tell an upstream attempt's failure:
// "upstream execution failed: provider=%s model=%s auth=%s duration=%s err=%s".
const (
	upstreamLogger = "conductor_execution.go"
	upstreamMark   = "upstream execution failed: "
)

// parseUpstreamFailure reads an upstream-failure line after its prefix.
func parseUpstreamFailure(fields []string, msg string, loc *time.Location) (AccessLine, bool, string) {
	a := AccessLine{Kind: AccessUpstreamFailure}
	rest := strings.TrimPrefix(msg, upstreamMark)
	parts := make([]string, 0, 5)
	for _, key := range []string{"provider=", " model=", " auth=", " duration=", " err="} {
		i := strings.Index(rest, key)
		if i < 0 {
			return a, false, fmt.Sprintf("upstream failure line lacks %q", strings.TrimSpace(key))
		}
		if len(parts) > 0 {
			parts[len(parts)-1] = rest[:i]
		}
		rest = rest[i+len(key):]
		parts = append(parts, rest)
	}
	a.Provider, a.Model, a.Auth = parts[0], parts[1], parts[2]
	a.Text = failureText(parts[4])
	d, err := time.ParseDuration(parts[3])
	if err != nil || d < 0 {
		return a, false, badValue("duration", parts[3], "a duration such as 806ms")
	}
	a.Latency = d
	end, err := time.ParseInLocation("2006-01-02 15:04:05", fields[0], loc)
	if err != nil {
		return a, false, badValue("time", fields[0], "a time as YYYY-MM-DD HH:MM:SS")
	}
	a.End = end.UTC()
	a.Start = a.End.Add(-d)
	if id := fields[1]; strings.Trim(id, "-") != "" {
		a.RequestID = id
	}
	return a, true, ""
}

// logPrefix splits the bracketed fields before a log message: time,
// request id, level and, when the logger reports it, the caller
// ("gin_logger.go:97").
func logPrefix(line []byte) (fields []string, rest []byte, reason string) {
	rest = line
	for len(fields) < 3 {
		end := bytes.IndexByte(rest, ']')
		if len(rest) == 0 || rest[0] != '[' || end < 0 {
			return nil, nil, "not a CLIProxyAPI log line: it does not start with [time] [request id] [level]"
		}
		fields = append(fields, strings.TrimSpace(string(rest[1:end])))
		rest = bytes.TrimLeft(rest[end+1:], " ")
	}
	if len(fields[0]) != len("2006-01-02 15:04:05") {
		return nil, nil, "not a CLIProxyAPI log line: it does not start with [time] [request id] [level]"
	}
	if end := bytes.IndexByte(rest, ']'); len(rest) > 0 && rest[0] == '[' && end > 0 && bytes.Contains(rest[:end], []byte(".go:")) {
		fields = append(fields, string(rest[1:end]))
		rest = bytes.TrimLeft(rest[end+1:], " ")
	}
	return fields, rest, ""
}

// parseRequestMessage reads `%3d | %13v | %15s | %-7s "%s"`, with the
// optional " [credits]" and " | <errors>" after it.
func parseRequestMessage(msg string) (AccessLine, string) {
	var a AccessLine
	parts := strings.SplitN(msg, "|", 4)
	if len(parts) < 4 {
		return a, "request line has fewer than 4 fields (status | latency | client | method \"path\")"
	}
	st, err := strconv.Atoi(strings.TrimSpace(parts[0]))
	if err != nil || st < 100 || st > 599 {
		return a, badValue("status", strings.TrimSpace(parts[0]), "an HTTP status")
	}
	a.Status = st
	lat, err := time.ParseDuration(strings.TrimSpace(parts[1]))
	if err != nil || lat < 0 {
		return a, badValue("latency", strings.TrimSpace(parts[1]), "a duration such as 6ms or 1.204s")
	}
	a.Latency = lat
	a.Client = strings.TrimSpace(parts[2])
	req := strings.TrimSpace(parts[3])
	method, quoted, found := strings.Cut(req, " ")
	quoted = strings.TrimSpace(quoted)
	if !found || method == "" || !strings.HasPrefix(quoted, `"`) {
		return a, badValue("request", req, `METHOD "path"`)
	}
	quoted = quoted[1:]
	end := strings.Index(quoted, `" | `)
	if i := strings.Index(quoted, `" [credits]`); i >= 0 && (end < 0 || i < end) {
		end = i
	}
	if end < 0 && strings.HasSuffix(quoted, `"`) {
		end = len(quoted) - 1
	}
	if end < 0 {
		return a, badValue("request", req, `METHOD "path"`)
	}
	path, _, _ := strings.Cut(quoted[:end], "?")
	a.Method, a.Path = method, path
	return a, ""
}
