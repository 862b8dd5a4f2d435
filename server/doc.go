// Package server serves one tether run as a Model Context Protocol server
// (github.com/modelcontextprotocol/go-sdk): tools/list shows the tools the run's
// surface allows, tools/call goes through Run.Call (so the tier is checked
// again, arguments are validated and approvals apply), and approvals are asked
// of the client's user through MCP elicitation.
//
// On stdio and over HTTP alike, a client of MCP 2026-07-28 (server/discover,
// then requests carrying their version in _meta) is served that revision:
// its questions and approvals come back as input requests in the call's
// result, answered by calling again with the request state; older clients
// (initialize) get elicitation while the call waits.
//
// A client that did not declare the elicitation capability counts as no
// approver connected: calls the policy says to ask about fail closed.
//
// See https://modelcontextprotocol.io/specification (tools, elicitation).
//
// server sits above tools: it imports tools and what tools wire, and nothing
// imports it but cmd; it must not import cmd or bench.
package server
