// Package tools holds tether's tool surface: the Tool type, approval tiers, the
// registry that lists and calls tools for a surface, and the Run that wires the
// live resources (language servers, parser engine, debugger, kernels, question
// port, worker roster) a run's tools are bound to.
//
// What each tool does, and how tiers, surfaces and approvals decide who sees
// and runs it, is in docs/tools.md.
//
// tools imports the resources its families are bound to (bridges, kernels,
// operator, workers, search, matcher, engine) and internal/: never server or
// cmd, which sit above it.
package tools
