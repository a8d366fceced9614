package postgres

import (
	"errors"
	"fmt"
)

// Kinds of failure, for errors.Is. No message of this package shows the
// password of the URL.
var (
	// ErrBadURL: the database URL does not parse.
	ErrBadURL = errors.New("bad database URL")
	// ErrAuth: the server refused the user or password.
	ErrAuth = errors.New("authentication failed")
	// ErrConnection: the server could not be reached, or the connection
	// was lost mid-stream.
	ErrConnection = errors.New("connection failed")
	// ErrTimeout: a query ran past the statement timeout.
	ErrTimeout = errors.New("statement timeout")
	// ErrMissingTable: a table tokenfare needs is not in the database.
	ErrMissingTable = errors.New("missing table")
	// ErrPermission: the role may not read a table tokenfare needs
	// (SQLSTATE 42501); Error.Msg says which grant is missing.
	ErrPermission = errors.New("permission denied")
	// ErrSameDatabase: two URLs name one database (or a primary and its
	// replica), whose rows would count twice.
	ErrSameDatabase = errors.New("same database given twice")
	// ErrQuery: the server refused a query.
	ErrQuery = errors.New("query failed")
)

// Error is a failure talking to one database.
type Error struct {
	Kind error  // one of the Err values above
	Op   string // what was being done: "connect", "read LiteLLM_SpendLogs"
	DB   string // the database, without password
	Msg  string // the driver's message, password taken out
}

// Error formats the failure as "op db: kind: message".
func (e *Error) Error() string { return fmt.Sprintf("%s %s: %v: %s", e.Op, e.DB, e.Kind, e.Msg) }

// Is reports whether target is the error's kind.
func (e *Error) Is(target error) bool { return target == e.Kind }
