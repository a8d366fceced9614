package state

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/ledger/tail"
)

// A feed of files (Feed.Files) is read past the marks the last refresh
// left: ledger/tail plans what to read of each file from its mark, and
// the state keeps the marks (bucketFiles), stored with the batch.

// fileMark is a file's mark as stored (tail.Mark, as JSON).
type fileMark struct {
	Offset int64  `json:"o"`
	Line   int    `json:"l"`
	Size   int64  `json:"s"`
	MTime  int64  `json:"m"`
	Prefix int    `json:"p"`
	Hash   string `json:"h"`
	Sum    string `json:"c,omitempty"` // "" in a mark written before it was kept
	Whole  bool   `json:"w,omitempty"`
}

func markRecord(m tail.Mark) fileMark {
	return fileMark{Offset: m.Offset, Line: m.Line, Size: m.Size, MTime: m.MTime, Prefix: m.Prefix, Hash: m.Hash, Sum: m.Sum, Whole: m.Whole}
}

func (r *fileMark) mark() tail.Mark {
	return tail.Mark{Offset: r.Offset, Line: r.Line, Size: r.Size, MTime: r.MTime, Prefix: r.Prefix, Hash: r.Hash, Sum: r.Sum, Whole: r.Whole}
}

// UnreadFile is a file of a feed a refresh could not read (a symbolic
// link in a loop, a file without read permission): the other files are
// read, and the next refresh tries it again from its mark.
type UnreadFile = tail.Unread

// filePlan is what a refresh reads of a feed's files.
type filePlan struct{ *tail.Plan }

// sources returns the plan's sources read fresh, or read again.
func (plan *filePlan) sources(fresh bool) []ledger.Source { return plan.Sources(fresh) }

// marks returns the marks stored for the feed's files, by path.
func (b *Batch) marks(feed string) (map[string]tail.Mark, error) {
	out := map[string]tail.Mark{}
	bk := b.tx.files()
	if !bk.exists() {
		return out, nil
	}
	prefix := fileKey(feed, "")
	c := bk.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var m fileMark
		if err := json.Unmarshal(v, &m); err != nil {
			return nil, fmt.Errorf("%w: file mark %q: %v", errCorrupt, k[len(prefix):], err)
		}
		out[string(k[len(prefix):])] = m.mark()
	}
	return out, nil
}

// planFiles decides, from the marks the last refresh left, what the
// refresh reads of each of paths (tail.NewPlan).
func (b *Batch) planFiles(feed string, paths []string) (*filePlan, error) {
	marks, err := b.marks(feed)
	if err != nil {
		return nil, err
	}
	plan, err := tail.NewPlan(paths, marks)
	if err != nil {
		return nil, err
	}
	return &filePlan{plan}, nil
}

// put stores the plan's marks, once its files are read, in tx.
func (plan *filePlan) put(tx *txn, feed string) error {
	bk, err := tx.ensure(bucketFiles)
	if err != nil {
		return err
	}
	for _, p := range plan.Drop {
		if err := bk.Delete(fileKey(feed, p)); err != nil {
			return err
		}
	}
	for i := range plan.Files {
		f := &plan.Files[i]
		v, _ := json.Marshal(markRecord(f.Mark()))
		if err := bk.Put(fileKey(feed, f.Path), v); err != nil {
			return err
		}
	}
	return nil
}
