package serve

import "net"

// ListenWith has d listen with listen in place of net.Listen.
func ListenWith(d *Daemon, listen func(network, addr string) (net.Listener, error)) {
	d.listen = listen
}
