// Package js is tether's JavaScript kernel: a goja runtime per kernel (which
// tether runs in a child process of its own, kernels/jsproc, as kernels/std
// chooses), with console.log, display, tool(name, args) (synchronous from the
// script's view), the last expression echoed, an idle budget enforced with
// goja's Interrupt, and a heap cap.
//
// # The heap cap
//
// goja has no heap limit of its own, so the kernel enforces one: while a cell
// runs, a guard watches the Go heap's object bytes and interrupts the cell
// once the heap has grown past the cap since the cell started, and the
// built-ins that allocate in proportion to an argument in one native call are
// wrapped to refuse an allocation that alone would pass it (guards.go,
// prelude.js). Why it is built so, and what it cannot catch, is in
// kernels/RATIONALE.md ("JavaScript: a heap cap on a runtime that has none").
//
// Deep recursion is bounded with SetMaxCallStackSize, so it is a RangeError in
// the cell and never a Go stack overflow.
//
// js imports kernels, internal/, goja and regexp2 (goja's engine, to count a
// regexp's matches before goja builds them) only: never tools or anything above
// it.
package js
