package server

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// hostMetrics are the host's own series on /metrics; what the host cannot
// see itself (tree store, child processes) the caller registers on the same
// registry (HostOptions.Registry).
type hostMetrics struct {
	calls   *prometheus.CounterVec
	latency *prometheus.HistogramVec
}

func newHostMetrics(reg *prometheus.Registry, h *Host) *hostMetrics {
	m := &hostMetrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tether_tool_calls_total", Help: "Tool calls by tool and outcome (ok, error, denied, refused).",
		}, []string{"tool", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "tether_tool_call_seconds", Help: "Tool call latency by tool.",
			Buckets: []float64{.001, .005, .01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
		}, []string{"tool"}),
	}
	reg.MustRegister(m.calls, m.latency,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tether_sessions_open", Help: "MCP sessions open (each one run)."},
			func() float64 { return float64(h.Sessions()) }))
	return m
}

// observe records one call in the metrics and logs one line for it: the
// session, tool, duration and outcome, never arguments or results.
func (h *Host) observe(session, tool string, took time.Duration, outcome string) {
	h.metrics.calls.WithLabelValues(tool, outcome).Inc()
	h.metrics.latency.WithLabelValues(tool).Observe(took.Seconds())
	h.logger().Info("server: call", "session", session, "tool", tool, "duration_ms", took.Milliseconds(), "outcome", outcome)
}
