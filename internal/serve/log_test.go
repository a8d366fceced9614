package serve_test

import (
	"io"
	"log/slog"
)

// slogTo is serve's logger: JSON lines on w.
func slogTo(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }
