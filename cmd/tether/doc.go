// Command tether runs tether's built-in tools: structural search and rewrite,
// language-server queries, a debugger, eval kernels, operator questions and
// background workers, from the command line or as an MCP server.
//
// Each subcommand lives in its own file and registers itself in commands;
// main.go only dispatches. Logic belongs in the packages, not here.
//
// main imports the layers below it (server, tools, the resources, search,
// matcher, engine, grammars, internal/) and nothing imports it; it must not
// import bench/.
package main
