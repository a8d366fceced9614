// Command tokenfare prices LLM gateway calls at official tariffs and
// reconciles the gateway's recorded spend.
package main

import (
	"os"
	// Every tariff names an IANA time zone: the binary carries the zone
	// database (about 450 kB) so that it works where the system has none
	// (containers, Windows). It is imported here, by the program, as the
	// time/tzdata documentation advises: the tariffs package stays a
	// library and leaves the choice to the program that uses it.
	_ "time/tzdata"

	"github.com/tokenfare/tokenfare/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
