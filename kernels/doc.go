// Package kernels holds tether's persistent interpreters for the eval tool: the
// Kernel interface, the results a cell produces, the bridge callback a cell uses
// to call the run's own tools, and a Factory that starts kernels by language.
//
// Two backends implement Kernel: kernels/js is a goja JavaScript runtime,
// which kernels/jsproc runs in a child process of its own, and kernels/python
// drives an external python3 process over its stdin/stdout with a framed
// protocol of ours; kernels/std chooses between them. What a cell can do is
// in docs/tools.md ("eval").
//
// Package kernels never imports tools: the eval tool adapts the run's
// registry to a ToolCaller. Neither it nor any package under it imports
// engine, matcher, bridges, operator, workers or anything above tools;
// they import internal/, goja and the regexp2 engine goja runs on only.
package kernels
