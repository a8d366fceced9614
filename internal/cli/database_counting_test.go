package cli

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tokenfare/tokenfare/internal/pgtest"
)

// otherHostName returns db's URL reaching the same server by another
// name: localhost for 127.0.0.1 and the other way round.
func otherHostName(t *testing.T, dbURL string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	switch u.Hostname() {
	case "127.0.0.1":
		u.Host = strings.Replace(u.Host, "127.0.0.1", "localhost", 1)
	case "localhost":
		u.Host = strings.Replace(u.Host, "localhost", "127.0.0.1", 1)
	default:
		t.Skipf("the test server is reached at %q, not by an address with a second name", u.Hostname())
	}
	return u.String()
}

// TestSameDatabaseGivenTwice gives one database by two host names: the run
// is refused before anything is read, in both modes, rather than printing
// a doubled total.
func TestSameDatabaseGivenTwice(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	other := otherHostName(t, db.URL)
	for _, mode := range [][]string{{"--push-down"}, {"--rows"}} {
		t.Run(strings.Join(mode, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "", append([]string{"reconcile", "--db", db.URL, "--db", other, "-o", "json"}, mode...)...)
			checkFault(t, code, stdout, stderr, "same database given twice", pgtest.Password)
			checkContains(t, "stderr", stderr, "database oid")
		})
	}
	t.Run("two databases", func(t *testing.T) {
		second := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
		code, _, stderr := runCLI(t, "", "reconcile", "--db", db.URL, "--db", second.URL, "-o", "json")
		if code != exitOK {
			t.Errorf("two different databases: exit %d: %s", code, stderr)
		}
	})
}

// TestPermissionDenied reads with a role that has no SELECT on the spend
// logs: the message says permission denied and gives the grant, not that
// the table is missing.
func TestPermissionDenied(t *testing.T) {
	ownerCase := func(t *testing.T) *pgtest.DB {
		t.Helper()
		db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
		var super bool
		if err := db.Connect(t).QueryRow(context.Background(), `SELECT rolsuper FROM pg_roles WHERE rolname = current_user`).Scan(&super); err != nil {
			t.Fatal(err)
		}
		if super {
			t.Skip("the test server's role is a superuser: a revoked grant does not hold for it")
		}
		return db
	}
	t.Run("owner without the grant", func(t *testing.T) {
		db := ownerCase(t)
		db.LoadDump(t, sampleDump)
		db.Exec(t, `REVOKE SELECT ON "LiteLLM_SpendLogs" FROM CURRENT_USER`)
		for _, mode := range [][]string{{"--push-down"}, {"--rows"}} {
			code, stdout, stderr := runCLI(t, "", append([]string{"reconcile", "--db", db.URL}, mode...)...)
			checkFault(t, code, stdout, stderr, "permission denied", pgtest.Password)
			checkContains(t, "stderr", stderr, `GRANT SELECT ON "LiteLLM_SpendLogs" TO`)
		}
	})
	t.Run("owner without the grant on the team table", func(t *testing.T) {
		// The schema probe passes; the server refuses the query itself
		// (SQLSTATE 42501).
		db := ownerCase(t)
		db.LoadDump(t, sampleDump)
		db.Exec(t, `REVOKE SELECT ON "LiteLLM_TeamTable" FROM CURRENT_USER`)
		code, stdout, stderr := runCLI(t, "", "reconcile", "--db", db.URL, "--by", "team")
		checkFault(t, code, stdout, stderr, "permission denied: for table LiteLLM_TeamTable", pgtest.Password)
		checkContains(t, "stderr", stderr, `GRANT SELECT ON`)
	})
	t.Run("role without any privilege", func(t *testing.T) {
		db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
		db.LoadDump(t, sampleDump)
		role := "tf_noselect_" + strings.TrimPrefix(db.Name, "tf_")
		ctx := context.Background()
		_, err := db.Connect(t).Exec(ctx, `CREATE ROLE `+role+` LOGIN PASSWORD 'no-select-pw-7'`)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42501" {
			t.Skipf("the test server's role may not create roles (%v); the owner case covers the grant", err)
		} else if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Connect(t).Exec(context.Background(), `DROP ROLE IF EXISTS `+role) })
		db.Exec(t, `GRANT CONNECT ON DATABASE `+db.Name+` TO `+role)
		u, _ := url.Parse(db.URL)
		u.User = url.UserPassword(role, "no-select-pw-7")
		code, stdout, stderr := runCLI(t, "", "reconcile", "--db", u.String())
		checkFault(t, code, stdout, stderr, "permission denied", "no-select-pw-7")
		checkContains(t, "stderr", stderr, `GRANT SELECT ON "LiteLLM_SpendLogs" TO "`+role+`"`)
	})
}
