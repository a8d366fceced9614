package failures_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/failures"
	"github.com/tokenfare/tokenfare/ledger"
)

// floodLog writes n request lines, ten a second from 2026-10-01 00:00:00
// UTC, in tens: seven 401s in 1 ms (a client with a wrong key), one 200,
// one 503 in 800 ms (reached the provider) and one 503 in 2 ms (the
// gateway's refusal in the rest that followed).
func floodLog(w io.Writer, n int) error {
	bw := bufio.NewWriter(w)
	t0 := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		status, latency, level, caller := 401, "1ms", "warn ", "gin_logger.go:95"
		switch i % 10 {
		case 7:
			status, latency, level, caller = 200, "1.2s", "info ", "gin_logger.go:97"
		case 8:
			status, latency, level, caller = 503, "800ms", "error", "gin_logger.go:93"
		case 9:
			status, latency, level, caller = 503, "2ms", "error", "gin_logger.go:93"
		}
		at := t0.Add(time.Duration(i/10) * time.Second).Format(time.DateTime)
		if _, err := fmt.Fprintf(bw, "[%s] [%08x] [%s] [%s] %3d | %13s | %15s | %-7s \"%s\"\n", at, i, level, caller, status,
			latency, "203.0.113.7", "POST", "/v1/chat/completions"); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// analyse reads a flood of n lines into an analyzer with opts, calling
// each every 65536 lines.
func analyse(t *testing.T, n int, opts failures.Options, each func()) *failures.Result {
	t.Helper()
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(floodLog(pw, n)) }()
	an := failures.New(opts)
	read := 0
	_, err := ledger.ReadAccessLog(context.Background(), "flood.log", pr, time.UTC, func(l *ledger.AccessLine) error {
		an.AddAccess(l)
		if read++; read%65536 == 0 {
			each()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return an.Result()
}

// TestAccessOnlyFindsWhatHoldingFinds: on a flood of 20 000 lines (five
// and a half hours), deciding the lines as they come finds what holding
// them all to the end finds, episodes included.
func TestAccessOnlyFindsWhatHoldingFinds(t *testing.T) {
	held := analyse(t, 20000, failures.Options{}, func() {})
	streamed := analyse(t, 20000, failures.Options{AccessOnly: true}, func() {})
	if !reflect.DeepEqual(held, streamed) {
		t.Errorf("as the lines come: %+v\nheld to the end: %+v", streamed, held)
	}
	// 2 000 s with a trigger and a refusal each: the refusal at second s
	// opens an episode on the trigger logged at s+1 (within the log's
	// second of slack), whose rest of a minute, plus that slack, holds
	// the refusals up to s+62; the one at s+63 opens the next: 2 000 / 63
	// s, rounded up.
	if got, want := len(streamed.Episodes), 32; got != want {
		t.Errorf("%d episodes, want %d", got, want)
	}
}

// TestAccessOnlyMemoryIsBounded reads a million request lines, 900 000
// failed, and checks the heap in use stays under 64 MiB: holding every
// failed line took about 1.7 KiB each, over 1.4 GiB.
func TestAccessOnlyMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("a million lines take a few seconds")
	}
	const n, limit = 1_000_000, 64 << 20
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapInuse, uint64(0)
	res := analyse(t, n, failures.Options{AccessOnly: true}, func() {
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	})
	grew := peak - min(base, peak)
	t.Logf("heap in use grew by %.1f MiB over %d lines", float64(grew)/(1<<20), n)
	if grew > limit {
		t.Errorf("heap in use grew by %d MiB over %d lines, want under %d MiB", grew>>20, n, limit>>20)
	}
	want := [failures.NumClasses]int64{failures.Upstream: n / 10, failures.Gateway: n * 8 / 10}
	if res.Total.Calls != want || res.Access.Failed != n*9/10 || res.Access.Alone != n*9/10 {
		t.Errorf("calls by class %v, %d failed, %d alone; want %v, %d, %d", res.Total.Calls, res.Access.Failed,
			res.Access.Alone, want, n*9/10, n*9/10)
	}
}
