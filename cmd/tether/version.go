package main

import "fmt"
import "io"
import "runtime"
import "runtime/debug"
import "text/tabwriter"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/internal/proc"

func init() {
	register("version", "print tether's version, wazero's, the sandbox's status, and each embedded grammar's package and module hash", runVersion)
}

// runVersion prints the module version (runtime/debug build info), the Go
// and wazero versions, how the grammar modules were built, and each grammar's
// pinned package and the sha256 of its embedded module.
func runVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "usage: tether version")
		return 2
	}
	v, wazero := "(devel)", "(unknown)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, d := range bi.Deps {
			if d.Path == "github.com/tetratelabs/wazero" {
				wazero = d.Version
				if d.Replace != nil {
					wazero = d.Replace.Path + " " + d.Replace.Version
				}
			}
		}
	}
	fmt.Fprintln(stdout, "tether", v)
	fmt.Fprintln(stdout, "go", runtime.Version())
	fmt.Fprintln(stdout, "wazero", wazero)
	rt := grammars.Runtime()
	fmt.Fprintf(stdout, "tree-sitter runtime %s\n", rt.Spec())
	if b := grammars.BuildInfo(); b != nil {
		fmt.Fprintf(stdout, "grammar modules built with %s, compressed with %s\n", b.Toolchain, b.Codec)
	}
	// What confines the processes tether starts, on this machine: a missing
	// layer is said here, never silently left out.
	fmt.Fprintln(stdout, proc.SandboxStatus())
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GRAMMAR\tPACKAGE\tMODULE SHA256")
	for _, l := range grammars.All() {
		sum := "not embedded"
		if grammars.Built(l.ID) {
			sum = l.Module.SHA256
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", l.ID, l.Package+"@"+l.Version, sum)
	}
	tw.Flush()
	return 0
}
