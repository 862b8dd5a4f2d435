package dap

import "context"
import "fmt"
import "net"
import "slices"
import "strconv"
import "strings"
import "time"

import "github.com/tetherhq/tether/internal/proc"

// TCP serves DAP on a TCP port: either tether starts the adapter with
// "${port}" in its command (a free port it picked) and connects to
// 127.0.0.1 on it, or, with Adapter.Address, the adapter already runs
// there and tether only connects.
const TCP Transport = "tcp"

// connectTCP starts a TCP adapter (or finds a running one) and connects.
func (s *session) connectTCP(ctx context.Context, timeout time.Duration) error {
	a := s.adapter
	deadline := time.Now().Add(timeout)
	if a.Address != "" {
		nc, err := dialRetry(ctx, "tcp", a.Address, time.Now().Add(min(timeout, s.attachWait)), nil)
		if err != nil {
			return fmt.Errorf("dap: %s: no adapter accepts connections on %s (%v); start it listening there first, or give the entry a command with ${port} for tether to start it", a.ID, a.Address, err)
		}
		s.tcpAddr = a.Address
		s.c = newConn(nc, s.onEvent, s.onReverse)
		s.c.timeout = s.requestTimeout
		return nil
	}
	if err := tcpReachable(a.ID); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return fmt.Errorf("dap: %s: finding a free port: %w", a.ID, err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	nc, err := s.startAndDial(ctx, map[string]any{"${port}": strconv.Itoa(port)}, "tcp", addr, addr, deadline, timeout)
	if err != nil {
		return err
	}
	s.tcpAddr = addr
	s.c = newConn(nc, s.onEvent, s.onReverse)
	s.c.timeout = s.requestTimeout
	return nil
}

// tcpReachable refuses to start a TCP adapter tether could not reach: with
// no network for debug adapters (--sandbox-net), the sandbox puts the
// adapter in a network namespace of its own and Landlock refuses its TCP
// bind, so no relay inside the sandbox could listen either.
func tcpReachable(id string) error {
	st := proc.SandboxStatus()
	if !st.Available() || st.Net[proc.Debug] || !st.NetConfined() {
		return nil
	}
	return fmt.Errorf("dap: the %s adapter serves DAP over TCP, and debug adapters have no network here (the operator's sandbox settings leave them none), so the sandbox keeps it from listening where tether could connect; ask the operator to give debug adapters the network, or use an adapter on stdio or a unix socket", id)
}

// freePort returns a TCP port free on 127.0.0.1 now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// dialRetry connects to addr on network ("tcp", "unix"), retrying while
// nothing listens yet, until deadline, ctx ends, or done (the adapter's
// exit) closes.
func dialRetry(ctx context.Context, network, addr string, deadline time.Time, done <-chan struct{}) (net.Conn, error) {
	wait := 20 * time.Millisecond
	for {
		d := net.Dialer{Timeout: 2 * time.Second}
		nc, err := d.DialContext(ctx, network, addr)
		if err == nil {
			return nc, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, err
		}
		select {
		case <-done:
			return nil, err
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(wait*2, 500*time.Millisecond)
	}
}

// checkTCPEntry checks a table entry's TCP fields: a started TCP adapter
// names its port with "${port}", a running one has address and no
// command.
func checkTCPEntry(a Adapter) error {
	if a.Address != "" {
		if a.Transport != TCP {
			return fmt.Errorf("dap: adapter table: %s: address needs transport %q", a.ID, TCP)
		}
		if len(a.Commands) > 0 {
			return fmt.Errorf("dap: adapter table: %s: give commands (tether starts the adapter on ${port}) or address (it already runs there), not both", a.ID)
		}
		if _, _, err := net.SplitHostPort(a.Address); err != nil {
			return fmt.Errorf("dap: adapter table: %s: address %q is not host:port", a.ID, a.Address)
		}
		return nil
	}
	if a.Transport != TCP {
		return nil
	}
	for _, c := range a.Commands {
		if !slices.ContainsFunc(c, func(w string) bool { return strings.Contains(w, "${port}") }) {
			return fmt.Errorf("dap: adapter table: %s: a tcp adapter's command needs ${port} (the port tether picks for it to listen on): %s", a.ID, strings.Join(c, " "))
		}
	}
	return nil
}
