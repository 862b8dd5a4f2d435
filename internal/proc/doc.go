// Package proc starts tether's child processes so that nothing tether started
// outlives it, even when it is killed with SIGKILL or by the OOM killer.
//
// Every spawn site calls Start (or Run) instead of cmd.Start. On Linux:
//
//   - The child gets a parent-death signal (SIGKILL). Linux sends it when the
//     thread that forked the child exits, not the process, so Start forks from
//     goroutines locked to OS threads that live as long as the process.
//   - Spawn starts a command the same way from a spawner: this binary re-run
//     (it stops in this package's init), a small process whose fork copies
//     little, where a fork of a large host in a new user namespace copies
//     its whole heap's page tables and write-protects every page of it. The
//     spawner is Start's child, ends with tether, and its children with it;
//     it passes back each child's pidfd and exit status.
//   - When the binary called Main (cmd/tether does), tether is a child
//     subreaper: a process orphaned anywhere below it is re-parented to
//     tether instead of init, and tether reaps those that end, without
//     touching the exit status an exec.Cmd still waits for.
//   - When the binary called Main, every child carries TETHER_OWNERS, naming
//     this tether process, in its environment, and so do its descendants
//     (they inherit it), a cell's subprocess in a session of its own
//     included. A sentinel process, started with the first child, waits for
//     tether to end (its end of a pipe closes however tether ends), then stops
//     and kills every process that carries the name. A descendant that clears
//     its environment is out of its reach; the parent-death signal still ends
//     the direct children.
//
// Elsewhere Start is cmd.Start.
//
// It imports no tether package outside internal/ (the standard library and the
// few third-party modules internal/layout_test.go allows it), so that every
// layer may use it.
package proc
