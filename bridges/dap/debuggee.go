package dap

// Adapters that are the program they debug (Adapter.Debuggee: rdbg, the
// Ruby debugger, serves DAP from inside the Ruby process it runs), and the
// Unix transport that reaches them: the adapter listens on a unix socket
// tether names, and tether connects to it.

import "context"
import "fmt"
import "net"
import "os/exec"
import "path/filepath"
import "strings"
import "time"

// Unix serves DAP on a unix socket the adapter listens on: its command
// names the socket with "${socket}" (rdbg: --sock-path=${socket}), a path
// in the session's scratch dir, and tether connects there (retrying until
// the start timeout). Unlike TCP it needs no network.
const Unix Transport = "unix"

// connectUnix starts an adapter that listens on a unix socket and
// connects to it.
func (s *session) connectUnix(ctx context.Context, timeout time.Duration) error {
	sock := filepath.Join(s.scratch, "dap.sock")
	nc, err := s.startAndDial(ctx, map[string]any{"${socket}": sock}, "unix", sock, "its socket", time.Now().Add(timeout), timeout)
	if err != nil {
		return err
	}
	s.c = newConn(nc, s.onEvent, s.onReverse)
	s.c.timeout = s.requestTimeout
	return nil
}

// startAndDial starts the adapter with vars in its command and connects
// to it at addr on network, retrying until deadline while it comes up;
// where names addr in errors ("its socket"), timeout is the bound they
// state.
func (s *session) startAndDial(ctx context.Context, vars map[string]any, network, addr, where string, deadline time.Time, timeout time.Duration) (net.Conn, error) {
	a := s.adapter
	cmd, argv, err := s.adapterCommand(vars)
	if err != nil {
		return nil, err
	}
	if err := s.wireOutput(cmd); err != nil {
		return nil, err
	}
	if err := s.startAdapter(cmd, argv); err != nil {
		return nil, err
	}
	nc, err := dialRetry(ctx, network, addr, deadline, s.procDone)
	if err != nil {
		select {
		case <-s.procDone:
			return nil, s.withStderr(fmt.Errorf("dap: %s exited before accepting a connection on %s (%s)", a.ID, where, cmd.ProcessState))
		default:
		}
		return nil, s.withStderr(fmt.Errorf("dap: %s did not accept a connection on %s within %s: %v", a.ID, where, timeout, err))
	}
	return nc, nil
}

// wireOutput points the started adapter's stdout and stderr where they
// belong: for an adapter that is the program (Debuggee), they are the
// program's output (stderr also kept as the adapter's, for errors);
// otherwise stdout is the adapter's console chatter.
func (s *session) wireOutput(cmd *exec.Cmd) error {
	if !s.adapter.Debuggee {
		cmd.Stdout, cmd.Stderr = s.console, s.stderr
		return nil
	}
	ps, err := s.captureOutput(cmd, s.stderr)
	if err != nil {
		return fmt.Errorf("dap: %w", err)
	}
	s.adapterPipes = &ps
	return nil
}

// adapterEnded records the end of an adapter that is the program: its
// exit is the program's, with its exit code (killed by a signal: ended,
// code unknown). It runs once the adapter's output is copied.
func (s *session) adapterEnded(cmd *exec.Cmd) {
	if !s.adapter.Debuggee || cmd.ProcessState == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited || s.terminated {
		return
	}
	if ps := cmd.ProcessState; ps.Exited() {
		s.exited, s.exitCode = true, ps.ExitCode()
	} else {
		s.terminated = true
	}
	s.notify()
}

// settleEnd waits, a few seconds at most, for the process of an adapter
// that is the program to be reaped once its connection has closed: the
// socket closes as the program exits, a moment before its exit code is
// known, and a program's end must not read as the adapter going away.
func (s *session) settleEnd() {
	if !s.adapter.Debuggee || s.procDone == nil || s.c == nil {
		return
	}
	select {
	case <-s.c.done:
	default:
		return
	}
	select {
	case <-s.procDone:
	case <-time.After(5 * time.Second):
	}
}

// exitCodeWait is how long the end of a program an adapter reports with
// "terminated" first waits for its "exited" event, which carries the exit
// code (Perl::LanguageServer sends the two in that order).
const exitCodeWait = 300 * time.Millisecond

// awaitExitCode waits, exitCodeWait at most, for the exited event of a
// program the adapter said has terminated.
func (s *session) awaitExitCode() {
	timer := time.NewTimer(exitCodeWait)
	defer timer.Stop()
	for {
		s.mu.Lock()
		exited, ch := s.exited, s.changed
		s.mu.Unlock()
		if exited {
			return
		}
		select {
		case <-ch:
		case <-s.c.done:
			return
		case <-timer.C:
			return
		}
	}
}

// commandArgv expands an adapter command's placeholders: a word that is
// exactly "${args}" becomes the program's arguments, one word each; other
// placeholders are replaced inside words.
func commandArgv(words []string, vars map[string]any) []string {
	argv := make([]string, 0, len(words))
	for _, w := range words {
		if list, ok := vars[w].([]any); ok {
			for _, x := range list {
				argv = append(argv, fmt.Sprint(x))
			}
			continue
		}
		s, _ := expand(w, vars).(string)
		argv = append(argv, s)
	}
	return argv
}

// launchCommandVars are the placeholders of a launch an adapter's command
// may name ("${program}", "${args}", "${cwd}"): an adapter that is the
// program starts with it.
func launchCommandVars(kind string, vars map[string]any) map[string]any {
	if kind != "launch" {
		return nil
	}
	out := map[string]any{}
	for k, v := range vars {
		if k == "${program}" || k == "${args}" || k == "${cwd}" {
			out[k] = v
		}
	}
	return out
}

// checkDebuggeeEntry checks a table entry that is the program it debugs:
// its command must name the program it runs.
func checkDebuggeeEntry(a Adapter) error {
	if !a.Debuggee {
		return nil
	}
	for _, c := range a.Commands {
		if !strings.Contains(strings.Join(c, " "), "${program}") {
			return fmt.Errorf("dap: adapter table: %s: an adapter that is the program (debuggee) names it in its command with ${program}: %s", a.ID, strings.Join(c, " "))
		}
	}
	return nil
}
