package metrics

import "bufio"
import "fmt"
import "math"
import "slices"
import "strings"
import "sync"
import "sync/atomic"

// Counter is a value that only goes up.
type Counter struct {
	o    Opts
	bits atomic.Uint64 // a float64
}

// NewCounter returns a counter at zero.
func NewCounter(o Opts) *Counter { return &Counter{o: o} }

// Inc adds one.
func (c *Counter) Inc() { c.Add(1) }

// Add adds v, which must not be negative (a negative v is ignored).
func (c *Counter) Add(v float64) {
	if v < 0 {
		return
	}
	for {
		old := c.bits.Load()
		if c.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// Value returns the count.
func (c *Counter) Value() float64 { return math.Float64frombits(c.bits.Load()) }

func (c *Counter) names() []string { return []string{c.o.Name} }

func (c *Counter) write(w *bufio.Writer) {
	header(w, c.o, "counter")
	sample(w, c.o.Name, c.Value())
}

// vec holds one child per combination of label values.
type vec[T any] struct {
	o      Opts
	labels []string
	make   func() *T

	mu       sync.Mutex
	children map[string]*T // by label values joined with \xff
	values   map[string][]string
}

func (v *vec[T]) with(values []string) *T {
	if len(values) != len(v.labels) {
		panic(fmt.Sprintf("metrics: %s takes %d label values (%s), got %d", v.o.Name, len(v.labels), strings.Join(v.labels, ", "), len(values)))
	}
	key := strings.Join(values, "\xff")
	v.mu.Lock()
	defer v.mu.Unlock()
	c := v.children[key]
	if c == nil {
		c = v.make()
		v.children[key] = c
		v.values[key] = slices.Clone(values)
	}
	return c
}

// order returns the indexes of the label names in name order, the order a
// series writes its labels in (as client_golang writes them).
func (v *vec[T]) order() []int {
	idx := make([]int, len(v.labels))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(v.labels[a], v.labels[b]) })
	return idx
}

// each calls f for every child, sorted by label values, with its labels as
// name, value pairs in name order.
func (v *vec[T]) each(f func(labels []string, c *T)) {
	v.mu.Lock()
	keys := make([]string, 0, len(v.children))
	for k := range v.children {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	type child struct {
		labels []string
		c      *T
	}
	all := make([]child, len(keys))
	for i, k := range keys {
		var labels []string
		for _, j := range v.order() {
			labels = append(labels, v.labels[j], v.values[k][j])
		}
		all[i] = child{labels, v.children[k]}
	}
	v.mu.Unlock()
	for _, ch := range all {
		f(ch.labels, ch.c)
	}
}

// CounterVec is a counter per combination of label values.
type CounterVec struct{ v vec[Counter] }

// NewCounterVec returns a counter family with the given label names.
func NewCounterVec(o Opts, labels []string) *CounterVec {
	return &CounterVec{vec[Counter]{o: o, labels: labels, make: func() *Counter { return &Counter{o: o} },
		children: map[string]*Counter{}, values: map[string][]string{}}}
}

// WithLabelValues returns the counter of these label values (in the order
// of the label names), making it at zero on first use.
func (c *CounterVec) WithLabelValues(values ...string) *Counter { return c.v.with(values) }

func (c *CounterVec) names() []string { return []string{c.v.o.Name} }

func (c *CounterVec) write(w *bufio.Writer) {
	header(w, c.v.o, "counter")
	c.v.each(func(labels []string, ctr *Counter) { sample(w, c.v.o.Name, ctr.Value(), labels...) })
}

// Histogram counts observations in cumulative buckets.
type Histogram struct {
	upper []float64 // bucket upper bounds, ascending; +Inf is implied

	mu     sync.Mutex
	counts []uint64 // per bucket, not cumulative; the last is +Inf's
	sum    float64
}

// Observe records v.
func (h *Histogram) Observe(v float64) {
	i, _ := slices.BinarySearch(h.upper, v) // the first bound >= v
	h.mu.Lock()
	h.counts[i]++
	h.sum += v
	h.mu.Unlock()
}

// HistogramVec is a histogram per combination of label values.
type HistogramVec struct{ v vec[Histogram] }

// NewHistogramVec returns a histogram family with the given buckets'
// upper bounds (ascending) and label names.
func NewHistogramVec(o Opts, buckets []float64, labels []string) *HistogramVec {
	if !slices.IsSorted(buckets) {
		panic(fmt.Sprintf("metrics: %s: buckets must ascend", o.Name))
	}
	upper := slices.Clone(buckets)
	return &HistogramVec{vec[Histogram]{o: o, labels: labels,
		make:     func() *Histogram { return &Histogram{upper: upper, counts: make([]uint64, len(upper)+1)} },
		children: map[string]*Histogram{}, values: map[string][]string{}}}
}

// WithLabelValues returns the histogram of these label values, making it
// empty on first use.
func (h *HistogramVec) WithLabelValues(values ...string) *Histogram { return h.v.with(values) }

func (h *HistogramVec) names() []string {
	n := h.v.o.Name
	return []string{n, n + "_bucket", n + "_sum", n + "_count"}
}

func (h *HistogramVec) write(w *bufio.Writer) {
	name := h.v.o.Name
	header(w, h.v.o, "histogram")
	h.v.each(func(labels []string, hist *Histogram) {
		hist.mu.Lock()
		counts, sum := slices.Clone(hist.counts), hist.sum
		hist.mu.Unlock()
		var cum uint64
		for i, n := range counts {
			cum += n
			le := math.Inf(1)
			if i < len(hist.upper) {
				le = hist.upper[i]
			}
			sample(w, name+"_bucket", float64(cum), append(slices.Clone(labels), "le", formatFloat(le))...)
		}
		sample(w, name+"_sum", sum, labels...)
		sample(w, name+"_count", float64(cum), labels...)
	})
}
