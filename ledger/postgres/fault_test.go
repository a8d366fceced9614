package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/internal/pgtest"
	"github.com/tokenfare/tokenfare/ledger"
)

// TestConnectionLostMidStream terminates the reading backend after the
// first batch: the next read fails as a lost connection.
func TestConnectionLostMidStream(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	db.Amplify(t, streamCopies()) // far more rows than socket buffers hold
	ctx := context.Background()
	r := openDB(t, db.URL, Options{})
	defer r.Close()
	var b ledger.Batch
	if err := r.Next(ctx, &b); err != nil || len(b.Calls) == 0 {
		t.Fatalf("first batch: %d calls, %v", len(b.Calls), err)
	}
	var killed bool
	err := db.Connect(t).QueryRow(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name = 'tokenfare' AND datname = current_database()`).Scan(&killed)
	if err != nil || !killed {
		t.Fatalf("terminate the reading backend: %v, %v", killed, err)
	}
	for err == nil {
		err = r.Next(ctx, &b)
	}
	if !errors.Is(err, ErrConnection) {
		t.Errorf("err = %v, want a lost connection", err)
	}
	if strings.Contains(err.Error(), pgtest.Password) {
		t.Errorf("the message shows the password: %v", err)
	}
}

// TestFailures covers the failures a user meets first: each names what
// went wrong and never shows the password.
func TestFailures(t *testing.T) {
	db := pgtest.New(t)
	tests := []struct {
		name     string
		url      string
		wantKind error
		wantText string
	}{
		{"wrong password", db.WithPassword("not-the-password-42"), ErrAuth, "authentication failed"},
		{"no LiteLLM tables", db.URL, ErrMissingTable, `"LiteLLM_SpendLogs"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := New(tt.url, Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = src.Open(context.Background())
			if !errors.Is(err, tt.wantKind) {
				t.Fatalf("err = %v, want %v", err, tt.wantKind)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.wantText) {
				t.Errorf("message %q lacks %q", msg, tt.wantText)
			}
			for _, pw := range []string{"not-the-password-42", pgtest.Password} {
				if strings.Contains(msg, pw) {
					t.Errorf("message shows the password: %q", msg)
				}
			}
		})
	}
}

// TestBadURL: a URL that does not parse is refused before connecting,
// without echoing its password.
func TestBadURL(t *testing.T) {
	_, err := New("postgres://alice:s3cret-pw@host:notaport/db", Options{})
	if !errors.Is(err, ErrBadURL) {
		t.Fatalf("err = %v, want ErrBadURL", err)
	}
	if strings.Contains(err.Error(), "s3cret-pw") {
		t.Errorf("message shows the password: %v", err)
	}
}
