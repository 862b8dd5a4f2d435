package server

import "fmt"
import "time"

import "github.com/tetherhq/tether/internal/textcut"
import "github.com/tetherhq/tether/server/metrics"

// hostMetrics are the host's own series on /metrics; what the host cannot
// see itself (tree store, child processes) the caller registers on the same
// registry (HostOptions.Registry).
type hostMetrics struct {
	calls   *metrics.CounterVec
	latency *metrics.HistogramVec
	// connsCut counts connections closed because too many were open with
	// no request authenticated on them
	connsCut *metrics.Counter
}

func newHostMetrics(reg *metrics.Registry, h *Host) *hostMetrics {
	m := &hostMetrics{
		calls: metrics.NewCounterVec(metrics.Opts{
			Name: "tether_tool_calls_total", Help: "Tool calls by tool and outcome (ok, error, denied, refused).",
		}, []string{"tool", "outcome"}),
		latency: metrics.NewHistogramVec(metrics.Opts{
			Name: "tether_tool_call_seconds", Help: "Tool call latency by tool.",
		}, []float64{.001, .005, .01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}, []string{"tool"}),
	}
	m.connsCut = metrics.NewCounter(metrics.Opts{
		Name: "tether_http_unauthenticated_conns_closed_total", Help: "Connections closed because more than the bound were open with no request authenticated on them.",
	})
	reg.MustRegister(m.calls, m.latency, m.connsCut,
		metrics.NewGaugeFunc(metrics.Opts{Name: "tether_sessions_open", Help: "MCP sessions and conversations open (each one run)."},
			func() float64 { return float64(h.Sessions()) }),
		metrics.NewGaugeFunc(metrics.Opts{Name: "tether_conversations_open", Help: "MCP 2026-07-28 conversations open (each one run; tether_sessions_open counts them too)."},
			func() float64 { return float64(h.Conversations()) }))
	return m
}

// maxLoggedName is the most of an unknown tool's name a log line holds.
const maxLoggedName = 64

// observe records one call in the metrics and logs one line for it: the
// session, tool, duration and outcome, never arguments or results. A tool
// the run does not have is labelled "unknown" (a label per name a client
// makes up would grow the series, and each scrape, without bound) and its
// name is logged cut to maxLoggedName bytes with its length.
func (h *Host) observe(session, tool string, known bool, took time.Duration, outcome string) {
	label := tool
	attrs := []any{"session", session, "tool", tool, "duration_ms", took.Milliseconds(), "outcome", outcome}
	if !known {
		label = "unknown"
		attrs[3] = label
		name := textcut.Prefix(tool, maxLoggedName)
		if len(name) < len(tool) {
			name = fmt.Sprintf("%s... (%d of %d bytes)", name, len(name), len(tool))
		}
		attrs = append(attrs, "name", name)
	}
	h.metrics.calls.WithLabelValues(label, outcome).Inc()
	h.metrics.latency.WithLabelValues(label).Observe(took.Seconds())
	h.logger().Info("server: call", attrs...)
}
