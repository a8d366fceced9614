// Command tokenfare prices LLM gateway calls at official tariffs and
// reconciles the gateway's recorded spend.
package main

import (
	"os"

	"github.com/tokenfare/tokenfare/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
