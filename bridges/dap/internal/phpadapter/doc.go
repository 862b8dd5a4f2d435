// Package phpadapter is tether's own debug adapter for PHP: it serves the
// Debug Adapter Protocol (https://microsoft.github.io/debug-adapter-protocol/)
// over an io.ReadWriteCloser (Serve) and drives Xdebug, which speaks DBGp
// (https://xdebug.org/docs/dbgp), in the php program it launches. Xdebug
// 3 ships no DAP server of its own, and the DAP adapter editors use for it
// is an editor extension, so bridges/dap runs this one in-process, as one
// more transport: a session talks to it over a net.Pipe exactly as to an
// external adapter's stdio.
//
// php runs with Xdebug in debug mode (start_with_request=yes), and Xdebug
// connects back: to a unix socket in a directory of the session's scratch
// dir that only tether's user reaches, or, where no socket path fits, to a
// loopback port. DBGp's messages (a decimal length, NUL, XML, NUL) are
// read with bounded sizes and parsed with encoding/xml; everything the
// debuggee sends is untrusted: unknown transactions, malformed XML and
// oversized packets end the connection with an error, and names it sends
// are never passed back in a command unquoted.
//
// It imports internal/ packages, go-dap (for DAP's messages) and its sibling
// dapserve only:
// never bridges/dap, which serves it, nor anything above. What it needs of
// the session (sandboxing a command, killing a process tree) it is given
// in Config.
package phpadapter
