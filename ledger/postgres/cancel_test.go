package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/pgtest"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestInterruptedPushDownLeavesNoQuery cancels a push-down sum while the
// server runs it (held up by a lock another transaction holds on the
// table): once Aggregate returns, no backend of tokenfare still runs a
// query on the database.
func TestInterruptedPushDownLeavesNoQuery(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	ctx := context.Background()
	lock := db.Connect(t)
	tx, err := lock.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `LOCK TABLE "LiteLLM_SpendLogs" IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	src, err := New(db.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		ao := AggregateOptions{Boundaries: func(time.Time, time.Time) []time.Time { return nil }, Billing: tariffs.BillEnd}
		_, err := src.Aggregate(runCtx, ao, func(*ledger.Aggregate) error { return nil })
		done <- err
	}()
	watch := db.Connect(t)
	running := func() int {
		t.Helper()
		var n int
		err := watch.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = 'tokenfare' AND state = 'active' AND datname = current_database()`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for deadline := time.Now().Add(30 * time.Second); running() == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the push-down never reached the table")
		}
	}
	cancel()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Aggregate did not return within 10 s of the cancel")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want the context's cancellation", err)
	}
	if n := running(); n != 0 {
		t.Errorf("%d backend(s) of tokenfare still run a query after the cancelled run returned", n)
	}
}
