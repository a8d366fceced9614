package ledger

import (
	"math/rand"
	"os"
	"testing"
	"time"
)

func TestHangHunt(t *testing.T) {
	seeds := []string{"testdata/cliproxy_v7.jsonl", "testdata/cliproxy_v7.json"}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 3000; i++ {
		data, _ := os.ReadFile(seeds[i%2])
		for k := 0; k < 1+rng.Intn(4); k++ {
			p := rng.Intn(len(data))
			switch rng.Intn(3) {
			case 0:
				data = append(data[:p:p], data[p+1:]...)
			case 1:
				data[p] = byte(rng.Intn(256))
			case 2:
				data = data[:p]
			}
		}
		done := make(chan bool)
		go func() { readAll(t, "q.jsonl", data, Options{BatchSize: 3}); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			os.WriteFile("/tmp/hang.bin", data, 0o644)
			panic("hang")
		}
	}
}
