package extsort

import (
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"
)

// BenchmarkMergeDays merges what a spill at each day's end leaves: 31
// runs of 8,192 groups each, their keys in disjoint ranges one after the
// other (a log in time order, grouped by day first), read back from
// memory and summed. ns/op is for the whole merge; ns/record is one
// group's read, decode and place in the heap.
func BenchmarkMergeDays(b *testing.B) {
	const days, perDay = 31, 8192
	store := newMemStore()
	r := kvRuns(store, 64, true)
	for d := range days {
		run := make([]kv, perDay)
		for i := range run {
			run[i] = kv{fmt.Sprintf("2026-10-%02d/key-%07d", d+1, i), int64(i)}
		}
		if err := r.Write(Slice(run)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		m, err := r.Merge()
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, err := range m.All() {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != days*perDay {
			b.Fatalf("%d records, want %d", n, days*perDay)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*days*perDay), "ns/record")
}

// wide is a test record shaped like a group's sum: a key and a dozen
// counts, most of them small.
type wide struct {
	key string
	n   [12]int64
}

type wideCodec struct{}

func (wideCodec) Encode(e *Encoder, v *wide) {
	e.String(v.key)
	for _, x := range v.n {
		e.Varint(x)
	}
}

func (wideCodec) Decode(d *Decoder, v *wide) {
	v.key = d.Text()
	for i := range v.n {
		v.n[i] = d.Varint()
	}
}

// BenchmarkWriteDays writes what a spill at each day's end writes: 31
// runs of 8,192 records of a key and a dozen counts (a few bytes each,
// one of them thousands), to memory. ns/record is one record's encoding
// and write.
func BenchmarkWriteDays(b *testing.B) {
	const days, perDay = 31, 8192
	recs := make([][]wide, days)
	for d := range recs {
		recs[d] = make([]wide, perDay)
		for i := range recs[d] {
			v := &recs[d][i]
			v.key = fmt.Sprintf("2026-10-%02d/key-%07d", d+1, i)
			for j := range v.n {
				v.n[j] = int64((i*7 + j*13) % 50)
			}
			v.n[3] = int64(i * 37)
		}
	}
	cfg := Config[wide]{Prefix: "w", MaxRuns: 64,
		Codec:   func() Codec[wide] { return wideCodec{} },
		Compare: func(a, b *wide) int { return strings.Compare(a.key, b.key) }}
	b.ResetTimer()
	for b.Loop() {
		cfg.Store = discardStore{}
		r := New(cfg)
		for _, run := range recs {
			if err := r.Write(Slice(run)); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*days*perDay), "ns/record")
}

// discardStore is a RunStore whose runs are written to nowhere.
type discardStore struct{}

type discardRun struct{}

func (discardRun) Write(p []byte) (int, error) { return len(p), nil }
func (discardRun) Close() error                { return nil }

func (discardStore) Create(string) (io.WriteCloser, error) { return discardRun{}, nil }
func (discardStore) Open(name string) (io.ReadCloser, error) {
	return nil, fmt.Errorf("open %s: %w", name, fs.ErrNotExist)
}
func (discardStore) Remove(string) error { return nil }
func (discardStore) RemoveAll() error    { return nil }
func (discardStore) FileLimit() uint64   { return 0 }
