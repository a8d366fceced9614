// Package serve is tokenfare serve's daemon: it refreshes the state
// every interval, prices it into Prometheus metrics, serves /metrics and
// /healthz, pops a CLIProxyAPI usage queue, and reads the tariffs again
// on Reload or when their files change.
//
// What it needs from elsewhere comes in its Config as values and
// functions: the open state, the refresh of the state from the feeds,
// the catalog's loading, the tariff files' stamp and the LiteLLM config
// read for the metrics. The command builds them from its flags and
// turns SIGHUP into Reload; the daemon parses no flag, handles no signal
// and reads no file itself.
//
// # Invariants
//
//   - Run returns the error that ends it: the listen's, the HTTP
//     server's, or the shutdown's once its context is cancelled; it
//     returns after every goroutine it started has ended.
//   - A refresh, a reload and an update of the metrics run in Run's
//     goroutine, one at a time; scrapes read the figures of the last
//     update, never a half-made one.
//   - Healthy is false until the first refresh went well, after one that
//     did not, and while records popped from the usage queue are held in
//     memory.
package serve
