// Package workers runs the background workers of vibe mode. A worker is a
// process started from the command configured for its tier ("fast" or
// "good"), given its brief on stdin and its id, label and tier in the
// environment (TETHER_WORKER_ID, TETHER_WORKER_LABEL, TETHER_WORKER_TIER). Its
// stdout is its result, its stderr its log. Each run gets its own process group
// so stopping a worker stops everything it started.
//
// The gate belongs on the worker's own tools, so a worker is told the run's
// limits, which it must keep to: TETHER_WORKER_SURFACE (default, plan or
// readonly: plan and readonly allow no file changes and no process starts)
// and TETHER_WORKER_APPROVE (the run's approval policy, as tether's --approve
// reads it: deny means do not do it, ask means ask the operator first, allow
// means go ahead). A worker that is tether itself honours both.
//
// A spawn may give an output schema the result must conform to (checked
// when the run ends), and may isolate the worker in its own git worktree of
// the workdir, whose changes come back as Report.Changes for the caller to
// stage. Each worker has a state directory kept across its runs
// (TETHER_WORKER_STATE); a follow-up continues its conversation through
// the tier's resume command when there is one, and reruns it otherwise.
//
// The tools over workers are in docs/tools.md ("ask_user and vibe mode").
//
// workers is a resource tools use: it imports internal/ only, never tools,
// server or cmd.
package workers
