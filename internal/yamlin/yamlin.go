// Package yamlin reads YAML input — tariff files, gateway configs — within
// bounds, so that no file can make tokenfare read or build without end.
//
// Two bounds hold for every YAML file tokenfare reads:
//
//   - The file is at most MaxBytes long; ReadFile refuses a longer one
//     (or an endless one, such as /dev/zero) after reading MaxBytes+1
//     bytes, never more.
//   - Aliases add at most MaxAliasNodes nodes when expanded. yaml.v3
//     refuses "excessive aliasing" only when aliases are most of a large
//     document; one large anchor used a hundred times passes its test and
//     decodes to a hundred copies (2.8 GB from a few megabytes of text).
//     Aliases checks the expanded size before anything is decoded from
//     the nodes.
package yamlin

import (
	"errors"
	"fmt"
	"io"
	"os"

	"gopkg.in/yaml.v3"
)

const (
	// MaxBytes is the longest YAML file read: 64 MiB, some hundred
	// times the largest real LiteLLM config seen.
	MaxBytes = 64 << 20
	// MaxAliasNodes is the most nodes alias expansion may add to a
	// document: shared litellm_params or price sets repeated across
	// a few thousand entries stay well below it.
	MaxAliasNodes = 200_000
)

// ErrTooLarge is why a file longer than MaxBytes is refused.
var ErrTooLarge = fmt.Errorf("file is larger than %d MiB", MaxBytes>>20)

// ErrAliases is why a document whose aliases expand beyond MaxAliasNodes
// (or into themselves) is refused.
var ErrAliases = errors.New("aliases expand too far")

// AliasError locates the alias at which expansion went beyond the bound.
type AliasError struct {
	Line  int    // line of the alias
	Alias string // its anchor's name
	Added int    // nodes its expansion added, as far as it was counted
	Loop  bool   // the alias refers to a node that contains it
}

func (e *AliasError) Error() string {
	if e.Loop {
		return fmt.Sprintf("alias *%s refers to a node that contains it", e.Alias)
	}
	return fmt.Sprintf("aliases expand too far: at *%s they add more than %d nodes to the document", e.Alias, MaxAliasNodes)
}

func (e *AliasError) Unwrap() error { return ErrAliases }

// ReadFile reads the file at path, refusing with ErrTooLarge (wrapped
// with the path) one longer than MaxBytes.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only: closing it loses nothing
	return readAll(path, f)
}

// readAll reads r, named name, refusing it with ErrTooLarge beyond
// MaxBytes.
func readAll(name string, r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("%s: %w; tokenfare reads YAML files up to that size", name, ErrTooLarge)
	}
	return data, nil
}

// Aliases checks that the aliases of the document under n add at most
// MaxAliasNodes nodes when expanded, and that none contains itself. It
// returns an *AliasError when not. It visits each node once: the
// expanded size of an anchored node is counted once and remembered.
func Aliases(n *yaml.Node) error {
	w := aliasWalk{size: map[*yaml.Node]int{}, open: map[*yaml.Node]bool{}}
	_, err := w.expanded(n)
	return err
}

type aliasWalk struct {
	size  map[*yaml.Node]int  // expanded size of anchored nodes seen
	open  map[*yaml.Node]bool // anchored nodes being counted
	added int                 // nodes aliases added so far
}

// expanded returns the number of nodes n stands for once its aliases are
// expanded.
func (w *aliasWalk) expanded(n *yaml.Node) (int, error) {
	if n == nil {
		return 0, nil
	}
	if n.Kind == yaml.AliasNode {
		t := n.Alias
		if t == nil {
			return 1, nil
		}
		if w.open[t] {
			return 0, &AliasError{Line: n.Line, Alias: n.Value, Loop: true}
		}
		s, ok := w.size[t]
		if !ok {
			// An alias before its anchor's end cannot happen outside a
			// loop; count the target as a literal node would be.
			var err error
			if s, err = w.expanded(t); err != nil {
				return 0, err
			}
		}
		w.added += s
		if w.added > MaxAliasNodes {
			return 0, &AliasError{Line: n.Line, Alias: n.Value, Added: w.added}
		}
		return s, nil
	}
	if s, ok := w.size[n]; ok {
		return s, nil
	}
	if n.Anchor != "" {
		w.open[n] = true
		defer delete(w.open, n)
	}
	total := 1
	for _, c := range n.Content {
		s, err := w.expanded(c)
		if err != nil {
			return 0, err
		}
		total += s
	}
	if n.Anchor != "" {
		w.size[n] = total
	}
	return total, nil
}
