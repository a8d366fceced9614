package pgtest

import (
	"context"
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

// TestSchemas loads both LiteLLM schemas and checks the columns that tell
// the releases apart.
func TestSchemas(t *testing.T) {
	tests := []struct {
		schema     string
		wantStatus bool
	}{
		{SchemaCurrent, true},
		{SchemaV140, false},
	}
	for _, tt := range tests {
		t.Run(tt.schema, func(t *testing.T) {
			db := NewLiteLLM(t, tt.schema)
			conn := db.Connect(t)
			var n int
			err := conn.QueryRow(context.Background(), `SELECT count(*) FROM information_schema.columns
				WHERE table_name = 'LiteLLM_SpendLogs' AND column_name = 'status'`).Scan(&n)
			if err != nil {
				t.Fatal(err)
			}
			if got := n == 1; got != tt.wantStatus {
				t.Errorf("status column present = %v, want %v", got, tt.wantStatus)
			}
		})
	}
}

// TestDatabasesApart checks that two tests' databases do not see each
// other's tables.
func TestDatabasesApart(t *testing.T) {
	a, b := New(t), New(t)
	if a.Name == b.Name {
		t.Fatalf("two databases named %s", a.Name)
	}
	a.Exec(t, "CREATE TABLE only_in_a (x int)")
	var n int
	if err := b.Connect(t).QueryRow(context.Background(), "SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("database %s sees a table of %s", b.Name, a.Name)
	}
}
