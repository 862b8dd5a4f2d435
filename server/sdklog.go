package server

import "context"
import "log/slog"
import "strings"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/internal/logging"

// sdkLogger is the logger the go-sdk gets: its records carry
// component=go-sdk, at the levels sdkLevel gives them, so that tether's
// default level (warn) holds only what needs the operator.
func sdkLogger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return nil
	}
	return logging.Remap(l, "go-sdk", sdkLevel)
}

// sdkClientFaults are the go-sdk's warnings and errors that say what a client
// did or could not take (a protocol version past ours, initialized twice, a
// notification it opened no stream for, a stream it dropped) and its own
// cancellation on shutdown: the client's business, not the operator's, so
// info.
var sdkClientFaults = []string{
	"rejecting request with protocol version",
	"initialized before initialize",
	"duplicate initialized notification",
	"calling notifications/",
	"Writing close event",
	"Writing priming event",
	"server run cancelled",
}

// sdkLevel is the level of a go-sdk record: its info records (a session
// connecting, connected, initialized, disconnected: tether logs the session's
// opening and closing itself, with its workspace) are debug; the client
// faults above are info; the rest keep theirs.
func sdkLevel(r slog.Record) slog.Level {
	if r.Level < slog.LevelWarn {
		return min(r.Level, slog.LevelDebug)
	}
	for _, p := range sdkClientFaults {
		if strings.HasPrefix(r.Message, p) {
			return slog.LevelInfo
		}
	}
	return r.Level
}

// quietBeforeInitialized drops notifications/tools/list_changed to a session
// whose client has not sent initialized: the host starts a session's run, and
// so adds its tools, while answering its initialize, when the client has no
// stream to take a notification on (the go-sdk warned "stream not connected"
// for it); the client lists the tools once initialized anyway.
func (s *Server) quietBeforeInitialized(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "notifications/tools/list_changed" {
			ss, _ := req.GetSession().(*mcp.ServerSession)
			s.mu.Lock()
			ready := s.initialized[ss]
			s.mu.Unlock()
			// A client of modernVersion never sends initialized: the go-sdk
			// sends it the notification only on a subscriptions/listen
			// stream it opened for it.
			if !ready && !modernSession(ss) {
				return nil, nil
			}
		}
		return next(ctx, method, req)
	}
}
