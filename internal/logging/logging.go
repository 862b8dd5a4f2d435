package logging

import "context"
import "fmt"
import "io"
import "log/slog"
import "strings"

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

// Remap returns a logger for a library that logs through l: each record's
// level becomes level(record) and the record carries component=name. level
// may only lower a level (a library's lifecycle chatter at info is debug
// here; a client's fault it reports as an error is not the operator's); a
// record whose new level l's handler does not take is dropped.
func Remap(l *slog.Logger, name string, level func(slog.Record) slog.Level) *slog.Logger {
	return slog.New(remap{l.Handler().WithAttrs([]slog.Attr{slog.String("component", name)}), level})
}

type remap struct {
	h     slog.Handler
	level func(slog.Record) slog.Level
}

// Enabled asks the handler at the record's own level: a remapped level is
// never higher, so a record the handler would not take at its own level it
// would not take remapped either.
func (r remap) Enabled(ctx context.Context, l slog.Level) bool { return r.h.Enabled(ctx, l) }

func (r remap) Handle(ctx context.Context, rec slog.Record) error {
	if l := r.level(rec); l < rec.Level {
		rec.Level = l
		if !r.h.Enabled(ctx, l) {
			return nil
		}
	}
	return r.h.Handle(ctx, rec)
}

func (r remap) WithAttrs(as []slog.Attr) slog.Handler { return remap{r.h.WithAttrs(as), r.level} }
func (r remap) WithGroup(g string) slog.Handler       { return remap{r.h.WithGroup(g), r.level} }
