package logging_test

import "bytes"
import "encoding/json"
import "log/slog"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/logging"

func TestNew(t *testing.T) {
	tests := []struct {
		level, format string
		want          []string // messages that appear, of debug, info, warn, error
	}{
		{"debug", "text", []string{"d", "i", "w", "e"}},
		{"info", "json", []string{"i", "w", "e"}},
		{logging.DefaultLevel, "", []string{"w", "e"}},
		{"ERROR", "text", []string{"e"}},
	}
	for _, tt := range tests {
		t.Run(tt.level+"/"+tt.format, func(t *testing.T) {
			var b bytes.Buffer
			l, err := logging.New(&b, tt.level, tt.format)
			if err != nil {
				t.Fatal(err)
			}
			l.Debug("d")
			l.Info("i")
			l.Warn("w")
			l.Error("e")
			var got []string
			if tt.format == "json" {
				for _, m := range jsonLines(t, b.String()) {
					got = append(got, m["msg"].(string))
				}
			}
			for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
				if i := strings.Index(line, "msg="); tt.format != "json" && i >= 0 {
					got = append(got, line[i+4:])
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("logged %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBadFlags(t *testing.T) {
	if _, err := logging.New(nil, "verbose", "text"); err == nil || !strings.Contains(err.Error(), "give one of debug, info, warn, error") {
		t.Errorf("bad level: %v", err)
	}
	if _, err := logging.New(nil, "info", "xml"); err == nil || !strings.Contains(err.Error(), "give one of text, json") {
		t.Errorf("bad format: %v", err)
	}
	if l, err := logging.ParseLevel("warning"); err != nil || l != slog.LevelWarn {
		t.Errorf("warning: %v %v", l, err)
	}
}

// TestRemap: a library's records take the level the mapping gives them (a
// lowered one below the logger's level is dropped), never a higher one, and
// carry the component.
func TestRemap(t *testing.T) {
	var b bytes.Buffer
	l, err := logging.New(&b, "info", "json")
	if err != nil {
		t.Fatal(err)
	}
	lib := logging.Remap(l, "lib", func(r slog.Record) slog.Level {
		switch r.Message {
		case "chatter":
			return slog.LevelDebug
		case "client fault":
			return slog.LevelInfo
		case "raise":
			return slog.LevelError // ignored: a mapping only lowers
		}
		return r.Level
	}).With("k", "v")
	lib.Info("chatter")
	lib.Error("client fault")
	lib.Warn("real")
	lib.Info("raise")
	var got []string
	for _, m := range jsonLines(t, b.String()) {
		if m["component"] != "lib" || m["k"] != "v" {
			t.Errorf("record lacks component or attrs: %v", m)
		}
		got = append(got, m["level"].(string)+" "+m["msg"].(string))
	}
	if want := "INFO client fault,WARN real,INFO raise"; strings.Join(got, ",") != want {
		t.Errorf("logged %q, want %q", strings.Join(got, ","), want)
	}
}

// jsonLines decodes each line of s as a JSON record.
func jsonLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		recs = append(recs, m)
	}
	return recs
}
