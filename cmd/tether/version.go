package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

func init() {
	register("version", "print tether's version", func(args []string, stdout, stderr io.Writer) int {
		v := "(devel)"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			v = bi.Main.Version
		}
		fmt.Fprintln(stdout, "tether", v)
		return 0
	})
}
