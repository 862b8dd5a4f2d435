// Package jsproc runs tether's JavaScript kernel (kernels/js) in a child
// process of its own, so that its heap cap is a wall: in a host serving many
// runs (tether serve --http) one session's cell growing the heap must not get
// another session's cell stopped, which happens when every kernel measures the
// one shared Go heap.
//
// The child is a tether binary run with a hidden subcommand (see Main) and
// started through internal/proc (a parent-death signal and the sentinel end
// it with its parent). It runs the in-process kernel unchanged, so output,
// timers, the idle budget, error wording and tool()'s String come out the
// same; the parent's Kernel forwards Execute, Reset and Close, the caller's
// cancellation, the bridge's tool calls (answered by the parent's own
// ToolCaller, which checks the run's tiers at call time, so the child gets no
// power the parent would refuse) and, when the config has a clock other than
// the wall clock (tests), that clock. The frames are kernels/internal/wire's, as
// the Python driver's.
//
// The heap cap is the in-process kernel's guard, now measuring the child's own
// heap. Behind it the parent watches the child's resident memory while a cell
// runs and kills the child past a hard cap (hardLimit): its state is lost, as
// when a Python kernel dies.
//
// jsproc imports kernels, kernels/js and internal/ only: never tools or
// anything above it.
package jsproc
