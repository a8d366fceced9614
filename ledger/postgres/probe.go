package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// LiteLLM's tables tokenfare reads. Only the spend logs are required; key,
// team and deleted-key tables add aliases when present.
const (
	tableSpendLogs = "LiteLLM_SpendLogs"
	tableKeys      = "LiteLLM_VerificationToken"
	tableDeleted   = "LiteLLM_DeletedVerificationToken"
	tableTeams     = "LiteLLM_TeamTable"
)

// requiredColumns are the columns of LiteLLM_SpendLogs tokenfare cannot do
// without.
var requiredColumns = []string{"request_id", "startTime", "spend", "prompt_tokens", "completion_tokens"}

// schema is which of LiteLLM's tables and columns a database has: its
// schema changes between releases (no status column before about v1.50,
// no deleted-key table before about v1.60).
type schema struct {
	// oneCtid: a ctid names one row of the spend logs, a plain table
	// with no partitions, no tables inheriting from it and no Citus.
	oneCtid bool
	// citus: the Citus extension is installed in the database.
	citus   bool
	spend   map[string]bool // columns of LiteLLM_SpendLogs
	keys    map[string]bool // columns of LiteLLM_VerificationToken; nil when absent
	deleted map[string]bool
	teams   map[string]bool
}

// probe reads the columns of LiteLLM's tables in the first schema of the
// search path that has the spend logs.
func probe(ctx context.Context, tx pgx.Tx) (*schema, error) {
	// The catalog shows every table to every role, information_schema only
	// those the role has a privilege on: a role without SELECT is told so,
	// not that the table is missing.
	var nsp string
	var readable, oneCtid, citus bool
	err := tx.QueryRow(ctx, `SELECT n.nspname::text, has_any_column_privilege(r.oid, 'SELECT'),
			r.relkind = 'r' AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhparent = r.oid),
			EXISTS (SELECT 1 FROM pg_extension e WHERE e.extname = 'citus')
		FROM pg_namespace n JOIN pg_class r ON r.relnamespace = n.oid AND r.relname = $1
		WHERE n.nspname = ANY(current_schemas(false))
		ORDER BY array_position(current_schemas(false), n.nspname) LIMIT 1`, tableSpendLogs).Scan(&nsp, &readable, &oneCtid, &citus)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, fmt.Errorf("%w: no table %q in the search path (is this LiteLLM's database?)", ErrMissingTable, tableSpendLogs)
	case err != nil:
		return nil, err
	case !readable:
		return nil, fmt.Errorf("%w: the role may not read table %q", ErrPermission, tableSpendLogs)
	}
	rows, err := tx.Query(ctx, `SELECT c.table_name::text, c.column_name::text
		FROM information_schema.columns c
		WHERE c.table_name = ANY($1) AND c.table_schema = $2`,
		[]string{tableSpendLogs, tableKeys, tableDeleted, tableTeams}, nsp)
	if err != nil {
		return nil, err
	}
	tables := map[string]map[string]bool{}
	for rows.Next() {
		var table, col string
		if err := rows.Scan(&table, &col); err != nil {
			return nil, err
		}
		if tables[table] == nil {
			tables[table] = map[string]bool{}
		}
		tables[table][col] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	s := &schema{oneCtid: oneCtid && !citus, citus: citus, spend: tables[tableSpendLogs], keys: tables[tableKeys], deleted: tables[tableDeleted], teams: tables[tableTeams]}
	if s.spend == nil {
		return nil, fmt.Errorf("%w: no table %q in the search path (is this LiteLLM's database?)", ErrMissingTable, tableSpendLogs)
	}
	for _, c := range requiredColumns {
		if !s.spend[c] {
			return nil, fmt.Errorf("%w: %q has no column %q (needs %s)", ErrMissingTable, tableSpendLogs, c, strings.Join(requiredColumns, ", "))
		}
	}
	if !s.keys["token"] || !s.keys["key_alias"] {
		s.keys = nil
	}
	if !s.deleted["token"] || !s.deleted["key_alias"] {
		s.deleted = nil
	}
	if !s.teams["team_id"] || !s.teams["team_alias"] {
		s.teams = nil
	}
	return s, nil
}
