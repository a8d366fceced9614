package serve

import (
	"runtime/debug"

	"github.com/tokenfare/tokenfare/internal/state"
)

// returnAfterRows is how many rows one refresh reads before serve gives
// the operating system back the memory it used at once.
const returnAfterRows = 1_000_000

// memoryReturn gives the operating system back, at once, the memory a
// large refresh used (the first sync of a big database, the metrics'
// first pricing of its state): the runtime would return it over many
// minutes, and a long-running serve would hold its peak meanwhile. A
// refresh of a few rows costs no forced collection.
type memoryReturn struct {
	read map[string]int64 // the rows read so far, by source
	free func()
}

func newMemoryReturn() *memoryReturn {
	return &memoryReturn{read: map[string]int64{}, free: debug.FreeOSMemory}
}

// after counts the rows a refresh read and returns the memory past
// returnAfterRows.
func (m *memoryReturn) after(sources []state.Source) {
	var n int64
	for _, s := range sources {
		n += s.Rows.Read - m.read[s.Name]
		m.read[s.Name] = s.Rows.Read
	}
	if n >= returnAfterRows {
		m.free()
	}
}
