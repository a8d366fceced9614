package importer

// Reason says why an entry of a table was not imported.
type Reason uint8

// Reasons an entry is left out.
const (
	// Unreadable: the table's reader could not make sense of the entry.
	Unreadable Reason = iota
	// Removed: the table marks the model withdrawn.
	Removed
	// NotPerToken: a mode not priced per token (embedding, image, ...).
	NotPerToken
	// NoPrice: the entry states no price per token or per call.
	NoPrice
	// NoHost: the table does not say who serves the model.
	NoHost
	// UnknownHost: the host is not one tokenfare recognises in logs.
	UnknownHost
	// InCatalog: the catalog prices the name on the host already.
	InCatalog
	// TimeOfUse: the prices depend on the time of day.
	TimeOfUse
	// Incomplete: no input or no output price, or a price out of the
	// range a tariff file holds.
	Incomplete
	// OtherHostName: a first party's name that starts with another host.
	OtherHostName
	// Duplicate: the host and name were imported from an earlier entry.
	Duplicate
)

var reasonNames = [...]string{"unreadable", "removed", "not_per_token", "no_price", "no_host", "unknown_host",
	"in_catalog", "time_of_use", "incomplete", "other_host_name", "duplicate"}

// String returns the reason's name as summaries write it.
func (r Reason) String() string { return reasonNames[r] }

// NumReasons is the number of reasons.
const NumReasons = int(Duplicate) + 1

// Skipped is an entry left out, where it is and why.
type Skipped struct {
	File   string
	Line   int
	Name   string
	Reason Reason
	Detail string // the reason in words, with what the entry says
}
