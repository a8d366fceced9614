package serve_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestServeMethods: /metrics and /healthz answer GET and HEAD; any other
// method is answered 405 with Allow: GET, HEAD.
func TestServeMethods(t *testing.T) {
	r := start(t, newFixture(t))
	tests := []struct {
		method, path string
		status       int
	}{
		{method: http.MethodGet, path: "/metrics", status: 200},
		{method: http.MethodHead, path: "/metrics", status: 200},
		{method: http.MethodPost, path: "/metrics", status: 405},
		{method: http.MethodPut, path: "/metrics", status: 405},
		{method: http.MethodDelete, path: "/metrics", status: 405},
		{method: http.MethodPost, path: "/healthz", status: 405},
		{method: http.MethodHead, path: "/healthz", status: 200},
		{method: http.MethodGet, path: "/", status: 404},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, "http://"+r.addr+tt.path, strings.NewReader("x"))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("HTTP %d, want %d", resp.StatusCode, tt.status)
			}
			if allow := resp.Header.Get("Allow"); tt.status == 405 && allow != "GET, HEAD" {
				t.Errorf("Allow: %q, want \"GET, HEAD\"", allow)
			}
		})
	}
}
