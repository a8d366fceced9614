package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGatewayConfigRead: serve's --config is read again only when its
// size or modification time changes (the bytes of a file rewritten to
// the same size and time are not seen), and a file that cannot be read
// is an error naming it, tried again at the next read.
func TestGatewayConfigRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if got := gatewayConfig(""); got != nil {
		t.Fatal("a reader without --config")
	}
	read := gatewayConfig(path)
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	steps := []struct {
		name string
		data string // "" removes the file
		at   time.Time
		want string // the bytes read, or the error's start
	}{
		{name: "missing", want: "read config: open " + path},
		{name: "first", data: "model_list: []\n", at: at, want: "model_list: []\n"},
		{name: "same size and time", data: "model_list: {}\n", at: at, want: "model_list: []\n"},
		{name: "same size, a later time", data: "model_list: {}\n", at: at.Add(time.Second), want: "model_list: {}\n"},
		{name: "another size", data: "model_list: [ ]\n", at: at.Add(time.Second), want: "model_list: [ ]\n"},
		{name: "removed", want: "read config: open " + path},
		{name: "back", data: "model_list: []\n", at: at, want: "model_list: []\n"},
	}
	for _, st := range steps {
		os.Remove(path)
		if st.data != "" {
			if err := os.WriteFile(path, []byte(st.data), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(path, st.at, st.at); err != nil {
				t.Fatal(err)
			}
		}
		gw, err := read(context.Background())
		got := ""
		if err != nil {
			got = err.Error()
		} else if gw.File != path {
			t.Errorf("%s: file %q, want %q", st.name, gw.File, path)
		} else {
			got = string(gw.Data)
		}
		if !strings.HasPrefix(got, st.want) {
			t.Errorf("%s: read %q, want %q", st.name, got, st.want)
		}
	}
}
