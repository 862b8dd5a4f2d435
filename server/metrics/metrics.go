package metrics

import "bufio"
import "fmt"
import "io"
import "math"
import "net/http"
import "slices"
import "strconv"
import "strings"
import "sync"

// Opts name a metric and say what it counts.
type Opts struct {
	Name, Help string
}

// A Collector writes one or more metrics families. The ones this package
// makes are the only implementations.
type Collector interface {
	names() []string
	write(w *bufio.Writer)
}

// Registry holds collectors and writes them, in the order registered.
type Registry struct {
	mu    sync.Mutex
	cs    []Collector
	names map[string]bool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{names: map[string]bool{}} }

// MustRegister adds collectors; it panics when a name is already there or
// is not a valid metric name (a programming error, as in client_golang).
func (r *Registry) MustRegister(cs ...Collector) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range cs {
		for _, n := range c.names() {
			if !validName(n) {
				panic(fmt.Sprintf("metrics: %q is not a metric name", n))
			}
			if r.names[n] {
				panic(fmt.Sprintf("metrics: %q registered twice", n))
			}
			r.names[n] = true
		}
		r.cs = append(r.cs, c)
	}
}

// WriteTo writes every metric in the text format.
func (r *Registry) WriteTo(w io.Writer) (int64, error) {
	r.mu.Lock()
	cs := slices.Clone(r.cs)
	r.mu.Unlock()
	cw := &countWriter{w: w}
	bw := bufio.NewWriter(cw)
	for _, c := range cs {
		c.write(bw)
	}
	err := bw.Flush()
	return cw.n, err
}

// Handler serves the registry's metrics.
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		r.WriteTo(w)
	})
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func validName(n string) bool {
	for i, r := range n {
		ok := r == '_' || r == ':' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9'
		if !ok {
			return false
		}
	}
	return n != ""
}

// header writes a family's HELP and TYPE lines.
func header(w *bufio.Writer, o Opts, typ string) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", o.Name, helpEscaper.Replace(o.Help), o.Name, typ)
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

// sample writes one line: name{labels} value; labels alternate names and
// values.
func sample(w *bufio.Writer, name string, v float64, labels ...string) {
	w.WriteString(name)
	if len(labels) > 0 {
		w.WriteByte('{')
		for i := 0; i+1 < len(labels); i += 2 {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString(labels[i])
			w.WriteString(`="`)
			w.WriteString(labelEscaper.Replace(labels[i+1]))
			w.WriteByte('"')
		}
		w.WriteByte('}')
	}
	w.WriteByte(' ')
	w.WriteString(formatFloat(v))
	w.WriteByte('\n')
}

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// funcMetric is a counter or gauge whose value a function gives at each
// scrape.
type funcMetric struct {
	o   Opts
	typ string
	f   func() float64
}

// NewGaugeFunc returns a gauge whose value is f's at each scrape.
func NewGaugeFunc(o Opts, f func() float64) Collector { return &funcMetric{o, "gauge", f} }

// NewCounterFunc returns a counter whose value is f's at each scrape; f
// must never go down.
func NewCounterFunc(o Opts, f func() float64) Collector { return &funcMetric{o, "counter", f} }

func (m *funcMetric) names() []string { return []string{m.o.Name} }

func (m *funcMetric) write(w *bufio.Writer) {
	header(w, m.o, m.typ)
	sample(w, m.o.Name, m.f())
}
