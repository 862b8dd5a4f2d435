package server

import "context"
import "fmt"
import "sync"
import "time"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/tools"

// keepAliveEvery is how long a call that asked for progress (it carries a
// progress token) may go without a notification: past it, one says the call
// still runs, so that a client that gives up on a silent call (some do after
// about three minutes) keeps waiting for a cell, a language server's start
// or a debug launch.
var keepAliveEvery = 15 * time.Second

// progressSender sends a call's progress notifications, in increasing
// order as MCP requires.
type progressSender struct {
	ctx   context.Context // the call's: notifications go on its stream
	ss    *mcp.ServerSession
	token any
	tool  string
	start time.Time

	mu   sync.Mutex
	last float64
	at   time.Time
}

// withProgress makes the call under ctx report its progress to the client
// of ss when p asks for it (a progress token); stop ends the keep-alive.
func withProgress(ctx context.Context, ss *mcp.ServerSession, tool string, p *mcp.CallToolParamsRaw) (_ context.Context, stop func()) {
	tok := p.GetProgressToken()
	if tok == nil || ss == nil {
		return ctx, func() {}
	}
	ps := &progressSender{ctx: ctx, ss: ss, token: tok, tool: tool, start: time.Now(), at: time.Now()}
	done := make(chan struct{})
	go ps.keepAlive(done, keepAliveEvery)
	return tools.WithProgress(ctx, ps.report), func() { close(done) }
}

// report sends done of total, dropped when not past what was sent.
func (ps *progressSender) report(done, total float64, message string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if done < 0 {
		done, total = ps.last+1, 0 // a step: numbered after what was sent
	}
	if done <= ps.last {
		return
	}
	ps.send(done, total, message)
}

// send sends one notification; ps.mu is held.
func (ps *progressSender) send(done, total float64, message string) {
	ps.last, ps.at = done, time.Now()
	ps.ss.NotifyProgress(ps.ctx, &mcp.ProgressNotificationParams{ProgressToken: ps.token, Progress: done, Total: total, Message: message})
}

// keepAlive sends a notification whenever every passed without one, until
// done is closed or the call's context ends.
func (ps *progressSender) keepAlive(done <-chan struct{}, every time.Duration) {
	t := time.NewTicker(max(every/4, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-ps.ctx.Done():
			return
		case <-t.C:
		}
		ps.mu.Lock()
		if time.Since(ps.at) >= every {
			ps.send(ps.last+1, 0, fmt.Sprintf("%s: still running after %s", ps.tool, time.Since(ps.start).Round(time.Second)))
		}
		ps.mu.Unlock()
	}
}
