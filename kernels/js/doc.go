// Package js is tether's JavaScript kernel: a goja runtime per kernel (which
// tether runs in a child process of its own, kernels/jsproc, as kernels/std
// chooses), with console.log, display, tool(name, args) (synchronous from the
// script's view), the last expression echoed, an idle budget enforced with
// goja's Interrupt, and a heap cap.
//
// # The heap cap
//
// goja has no heap limit of its own, so the kernel enforces one in two ways
// (a decision recorded here because it is not obvious from the code):
//
//   - While a cell runs, a guard looks at the Go heap (runtime/metrics
//     "/memory/classes/heap/objects:bytes") every millisecond and interrupts
//     the cell as soon as the heap has grown by more than the cap since the
//     cell started, without collecting first: a collection waits for the
//     cell's goroutine to finish the copy it is in, and a string doubling in
//     a loop (s = s + s) doubled again meanwhile. So that garbage is not
//     mistaken for growth, the guard has garbage collected in the background
//     long before it could reach the cap. After the interrupt the kernel
//     collects and returns the freed memory to the operating system: when
//     what the cell allocated is gone (a local string), the state is kept;
//     otherwise the runtime is discarded and the result says state was lost.
//     goja cannot be hooked where `+` allocates, so one allocation can pass
//     the cap: the one in flight when the guard looks (at most twice the
//     largest string, which is under the cap). The heap is the process's, so
//     allocations by other goroutines count too.
//   - goja cannot interrupt a native built-in mid-call, so the built-ins that
//     allocate in one call in proportion to an argument (String.prototype.repeat,
//     padStart, padEnd, Array.prototype.fill, ArrayBuffer and the typed-array
//     constructors) are wrapped to throw a RangeError when the one allocation
//     alone would pass the cap, and so are those that build a result in
//     proportion to a length that a sparse array or an empty pattern makes
//     huge (join, concat, split, replace, replaceAll, JSON.stringify; see
//     guards.go).
//
// Deep recursion is bounded with SetMaxCallStackSize, so it is a RangeError in
// the cell and never a Go stack overflow.
//
// js imports kernels, internal/ and goja only: never tools or anything above
// it.
package js
