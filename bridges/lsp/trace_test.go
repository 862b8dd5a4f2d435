package lsp_test

import "log/slog"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

// TestWireTraceAtDebug: with slog at debug level (tether --log-level debug)
// the language-server wire trace names each message's direction, method and
// size, and never the file text it carries; at the default level (warn)
// there is none.
func TestWireTraceAtDebug(t *testing.T) {
	testenv.RequireBinary(t, "gopls")
	old := slog.Default()
	t.Cleanup(func() { slog.SetDefault(old) })
	for _, level := range []slog.Level{slog.LevelDebug, slog.LevelWarn} {
		t.Run(level.String(), func(t *testing.T) {
			var buf testenv.SyncBuffer
			slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: level})))
			dir := testenv.LSPProject(t, "goproj")
			s := newSupervisor(t, dir)
			if _, err := s.Hover(ctxT(t), lsp.Position{File: "use.go", Line: 11, Symbol: "Total"}); err != nil {
				t.Fatal(err)
			}
			s.Close()
			log := buf.String()
			if level > slog.LevelDebug {
				if strings.Contains(log, "lsp wire") {
					t.Fatalf("wire trace at %s:\n%s", level, log)
				}
				return
			}
			testenv.WantAll(t, "trace", log,
				`msg="lsp wire" server=gopls dir=-> method=initialize bytes=`,
				`dir=-> method=textDocument/didOpen bytes=`,
				`dir=-> method=textDocument/hover bytes=`,
				`dir=<- method="textDocument/hover reply" bytes=`,
			)
			// use.go's text went out in didOpen; the hover reply has the doc comment.
			for _, secret := range []string{"package shapes", "sums the areas"} {
				if strings.Contains(log, secret) {
					t.Errorf("trace carries file text %q:\n%s", secret, log)
				}
			}
		})
	}
}
