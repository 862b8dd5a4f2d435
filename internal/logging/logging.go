// Package logging builds tether's diagnostic logger (log/slog) from the
// --log-level and --log-format flags. Diagnostics go to stderr, never to
// stdout (which `tether serve` speaks MCP on), and never carry file contents
// or tokens: a message names what happened and how big it was.
package logging

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// DefaultLevel is the level without --log-level: warnings and errors only,
// so an MCP client's log of tether's stderr holds what needs attention.
const DefaultLevel = "warn"

// Levels and Formats are the values the flags accept.
var (
	Levels  = []string{"debug", "info", "warn", "error"}
	Formats = []string{"text", "json"}
)

// ParseLevel returns the slog level named by s (debug, info, warn, error).
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("logging: log level %q: give one of %s", s, strings.Join(Levels, ", "))
}

// New returns a logger writing to w at level in format ("text" or "json";
// "" is text).
func New(w io.Writer, level, format string) (*slog.Logger, error) {
	l, err := ParseLevel(level)
	if err != nil {
		return nil, err
	}
	opts := &slog.HandlerOptions{Level: l}
	switch strings.ToLower(strings.TrimSpace(format)) {
	case "", "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("logging: log format %q: give one of %s", format, strings.Join(Formats, ", "))
}
