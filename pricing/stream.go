package pricing

import "iter"

// Collect copies what seq yields (the groups of a reconciliation, the
// lines of a chargeback) into a list, and returns the error seq yields,
// with what was read before it. It is for results known to be short, and
// for tests: a long result is ranged over as it is read.
func Collect[T any](seq iter.Seq2[*T, error]) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, *v)
	}
	return out, nil
}
