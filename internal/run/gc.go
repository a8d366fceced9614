package run

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// gcHeadroom is the least the heap may grow by between two garbage
// collections while rows are read. A read of a file keeps a small live
// heap (the chunks and calls in flight, about 30 MiB) and makes its
// garbage at a steady rate (the text of each call's request id and
// place), so with Go's default, which lets the heap grow by as much as is
// live, it collects every 30 MiB or so, each time scanning the calls in
// flight again. With 64 MiB of headroom it collects about half as often,
// for that much more peak memory; once the live heap is above 64 MiB (many
// groups), the default applies as it is.
const gcHeadroom = 64 << 20

// maxGCPercent bounds the percent gcPercent sets, for a nearly empty heap.
const maxGCPercent = 400

// gcPacer raises the garbage collector's percent (GOGC) while rows are
// read so that the heap may grow by at least gcHeadroom, and puts it back
// once no read is going on. It leaves the collector alone when GOGC is set
// in the environment or the collector is off. Reads at once (runs in
// parallel in one process) share it: the first one records the percent
// in force, the last one puts it back.
type gcPacer struct {
	reads int // batches since the last look at the heap
}

// gcState is the process's one collector setting, shared by the reads
// going on.
var gcState struct {
	sync.Mutex
	readers int // reads going on with a pacer
	base    int // the percent in force before the first of them
	percent int // the percent set
	sample  []metrics.Sample
}

// startGCPacer returns a pacer for one read; nil when the collector is to
// be left alone.
func startGCPacer() *gcPacer {
	if os.Getenv("GOGC") != "" {
		return nil
	}
	gcState.Lock()
	defer gcState.Unlock()
	if gcState.readers == 0 {
		base := debug.SetGCPercent(100)
		debug.SetGCPercent(base)
		if base <= 0 {
			return nil
		}
		gcState.base, gcState.percent = base, base
		gcState.sample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	}
	gcState.readers++
	adjustGC()
	return &gcPacer{}
}

// batch notes a batch read; every 64 batches it looks at the heap again,
// as the groups a read makes can grow it.
func (p *gcPacer) batch() {
	if p == nil {
		return
	}
	if p.reads++; p.reads >= 64 {
		p.reads = 0
		gcState.Lock()
		adjustGC()
		gcState.Unlock()
	}
}

// stop ends the read; the last read going on puts the percent back as it
// was before the first.
func (p *gcPacer) stop() {
	if p == nil {
		return
	}
	gcState.Lock()
	defer gcState.Unlock()
	if gcState.readers--; gcState.readers == 0 && gcState.percent != gcState.base {
		debug.SetGCPercent(gcState.base)
	}
}

// adjustGC sets the percent for the live heap now; gcState is locked.
func adjustGC() {
	metrics.Read(gcState.sample)
	var live uint64
	if v := gcState.sample[0].Value; v.Kind() == metrics.KindUint64 {
		live = v.Uint64()
	}
	if pct := gcPercent(live, gcState.base); pct != gcState.percent {
		debug.SetGCPercent(pct)
		gcState.percent = pct
	}
}

// gcPercent is the percent that lets a heap of live bytes grow by at
// least gcHeadroom before the next collection, never below base nor above
// maxGCPercent. An unknown live heap (0) gets base.
func gcPercent(live uint64, base int) int {
	if live == 0 || live >= gcHeadroom {
		return base
	}
	pct := int(gcHeadroom * 100 / live)
	return max(base, min(pct, maxGCPercent))
}
