package ledger

import "testing"

func BenchmarkW1(b *testing.B) {
	benchOpt = Options{Workers: 1}
	defer func() { benchOpt = Options{} }()
	BenchmarkReadLiteLLMCSV(b)
}
