package lsp

import "bytes"
import "context"
import "fmt"
import "os"
import "os/exec"
import "strings"
import "sync"
import "time"

import "github.com/tetherhq/tether/internal/proc"

// probeTimeout bounds one run of a server's Probe command.
const probeTimeout = 15 * time.Second

// probeCache remembers probe outcomes by binary path, size and mtime, so status
// and starts do not rerun a binary that has not changed.
var probeCache sync.Map // string -> string ("" = the binary runs)

// unusable runs s's Probe against the binary at bin and returns "" when it
// runs, or why it does not ("rust-analyzer --version failed: error: Unknown
// binary ..."). A server without a Probe is taken on trust.
func (s *Server) unusable(name, bin string, env []string) string {
	if len(s.Probe) == 0 || bin == "" {
		return ""
	}
	fi, err := os.Stat(bin)
	if err != nil {
		return fmt.Sprintf("%s: %v", bin, err)
	}
	key := fmt.Sprintf("%s\x00%d\x00%d\x00%s", bin, fi.Size(), fi.ModTime().UnixNano(), strings.Join(s.Probe, "\x00"))
	if v, ok := probeCache.Load(key); ok {
		return v.(string)
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, s.Probe...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	why := ""
	cleanup, err := sandboxed(cmd, *s, bin, "")
	if err == nil {
		err = proc.Run(cmd)
		cleanup()
	}
	if err != nil {
		msg := firstLine(out.String())
		if ctx.Err() != nil {
			msg = fmt.Sprintf("no answer within %s", probeTimeout)
		} else if msg == "" {
			msg = err.Error()
		}
		why = fmt.Sprintf("%s at %s does not run (%s %s failed: %s)", name, bin, name, strings.Join(s.Probe, " "), msg)
	}
	probeCache.Store(key, why)
	return why
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return strings.TrimSpace(s)
}
