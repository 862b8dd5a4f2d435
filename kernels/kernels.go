package kernels

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "sort"
import "strings"
import "time"

// Language names a kernel backend.
type Language string

// The languages tether ships kernels for.
const (
	Python     Language = "python"
	JavaScript Language = "javascript"
)

// ParseLanguage accepts "python"/"py" and "javascript"/"js"; "" means Python.
func ParseLanguage(s string) (Language, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "python", "py", "python3":
		return Python, nil
	case "javascript", "js":
		return JavaScript, nil
	}
	return "", fmt.Errorf("kernels: unknown language %q: use python or javascript", s)
}

// Kernel is one persistent interpreter. Variables, imports and loaded data
// persist between Execute calls until Reset or Close. Execute calls are
// serialized; a Kernel is safe for use from several goroutines.
type Kernel interface {
	// Language is the kernel's language.
	Language() Language
	// Execute runs one cell. Failures of the cell itself (exceptions, syntax
	// errors, an interrupt, the interpreter dying) are reported in
	// Result.Error; the returned error is for failures to run the cell at all
	// (the interpreter cannot be started, the kernel is closed).
	Execute(ctx context.Context, cell Cell) (*Result, error)
	// Reset discards the interpreter and its state; the next Execute starts a
	// fresh one.
	Reset() error
	// Close discards the interpreter and releases every resource (processes
	// included). Execute after Close fails.
	Close() error
}

// Cell is one unit of code to execute.
type Cell struct {
	// Code is the cell's source.
	Code string
	// Label is the cell's description, echoed in transcripts.
	Label string
}

// MIME types a display bundle may carry.
const (
	MIMEText = "text/plain"
	MIMEHTML = "text/html"
	MIMEPNG  = "image/png"
)

// Display is one rich output: a MIME bundle. Text is always set; HTML and PNG
// are set when the value has such a representation.
type Display struct {
	Text string `json:"text/plain,omitempty"`
	HTML string `json:"text/html,omitempty"`
	PNG  []byte `json:"image/png,omitempty"`
	// Note says what was left out of this bundle and why (an image over the
	// size cap, an HTML table cut), or is empty.
	Note string `json:"note,omitempty"`
}

// Stream is captured stdout or stderr text, bounded. When the output was
// larger than the bound, Text keeps its head and tail and Cut says how many
// bytes in the middle were dropped.
type Stream struct {
	Text string `json:"text,omitempty"`
	Cut  int64  `json:"cut,omitempty"`
	// Full is the whole output when Text was cut and the kernel kept it
	// (Config.MaxSpill), for the caller to hand over some other way (a
	// file); FullCut counts the bytes past MaxSpill that Full lacks.
	Full    string `json:"full,omitempty"`
	FullCut int64  `json:"fullCut,omitempty"`
}

// Error is a cell that failed.
type Error struct {
	// Name is the error's kind: an exception class ("NameError",
	// "SyntaxError", "TypeError"), or one of the kernel kinds below.
	Name string `json:"name"`
	// Message is the error message.
	Message string `json:"message"`
	// Traceback is the formatted traceback, cell frames only, or empty.
	Traceback string `json:"traceback,omitempty"`
	// Line is the 1-based cell line the error points at, or 0 when unknown.
	Line int `json:"line,omitempty"`
}

// Error implements error: the kind, then the message.
func (e *Error) Error() string {
	if e.Message == "" {
		return e.Name
	}
	return e.Name + ": " + e.Message
}

// Is reports whether e is of the kernel-level kind target names, so that
// errors.Is(res.Error, kernels.KindInterrupted) tests a result's error.
func (e *Error) Is(target error) bool {
	k, ok := target.(kindError)
	return ok && e != nil && e.Name == string(k)
}

// kindError is a kernel-level error kind as a sentinel for errors.Is.
type kindError string

func (k kindError) Error() string { return string(k) }

// Kernel-level error kinds (Error.Name) that are not exceptions of the
// language itself.
const (
	// KindInterrupted: the cell was interrupted (idle budget spent, or the
	// caller gave up) and the kernel came back; state is kept.
	KindInterrupted = "Interrupted"
	// KindKernelDied: the interpreter died during the cell; state is lost.
	KindKernelDied = "KernelDied"
	// KindKernelRestarted: the kernel did not come back from an interrupt
	// and was discarded; state is lost.
	KindKernelRestarted = "KernelRestarted"
	// KindMemoryLimit: the cell went over the kernel's memory cap.
	KindMemoryLimit = "MemoryLimit"
	// KindUsage: the cell used an unsupported magic or malformed idiom.
	KindUsage = "UsageError"
)

// The kernel-level kinds as errors, for errors.Is against a Result's Error.
var (
	ErrInterrupted     error = kindError(KindInterrupted)
	ErrKernelDied      error = kindError(KindKernelDied)
	ErrKernelRestarted error = kindError(KindKernelRestarted)
	ErrMemoryLimit     error = kindError(KindMemoryLimit)
	ErrUsage           error = kindError(KindUsage)
)

// Result is what a cell produced. Every part is bounded.
type Result struct {
	// Stdout and Stderr are the captured streams.
	Stdout Stream `json:"stdout"`
	Stderr Stream `json:"stderr"`
	// Value is the echoed value of the cell's last expression, or nil.
	Value *Display `json:"value,omitempty"`
	// Displays are display() outputs and figures, in order, at most
	// Config.MaxDisplays of them (a notice says how many more there were).
	Displays []Display `json:"displays,omitempty"`
	// Outputs are the cell's stream text and displays in the order the cell
	// produced them, so stdout, stderr and displays read as they interleaved.
	// Nil when the streams were over the output bound (then only Stdout,
	// Stderr and Displays, each bounded, tell what the cell printed).
	Outputs []Output `json:"outputs,omitempty"`
	// Error is set when the cell failed.
	Error *Error `json:"error,omitempty"`
	// Notices say what happened to the kernel itself, in plain words ("started
	// a fresh python kernel: the previous one died (signal: killed); earlier
	// state is gone").
	Notices []string `json:"notices,omitempty"`
	// StateLost is true when the variables of earlier cells are gone: the
	// kernel was (re)started fresh for or during this cell.
	StateLost bool `json:"stateLost,omitempty"`
	// Fresh is true when this cell ran in a newly started interpreter.
	Fresh bool `json:"fresh,omitempty"`
	// Limits name the caps a newly started interpreter runs under, or say
	// that one could not be set and why ("processes: at most 256 ... (cgroup
	// v2 pids.max)"); set with Fresh.
	Limits []string `json:"limits,omitempty"`
}

// StartedFresh records that the cell runs in a newly started interpreter
// (what: "python kernel"). loss, when not empty, says why the previous one is
// gone: the state it held (gone: "variables from earlier cells") is lost, and
// a notice says so.
func (r *Result) StartedFresh(what, loss, gone string) {
	r.Fresh = true
	if loss != "" {
		r.StateLost = true
		r.Notices = append(r.Notices, "started a fresh "+what+": "+loss+"; "+gone+" are gone")
	}
}

// ToolReply is what a bridge call returns to the cell.
type ToolReply struct {
	// Text is the result's text content, joined.
	Text string `json:"text"`
	// IsError marks a failed tool call; the cell sees an exception.
	IsError bool `json:"isError,omitempty"`
	// Structured is the result's machine-readable output, or nil.
	Structured json.RawMessage `json:"structured,omitempty"`
}

// ToolCaller calls one of the run's tools on behalf of a cell (the bridge).
// An error means the call could not be made (unknown tool, refused by the
// surface or the approval policy); the cell sees an exception carrying it.
type ToolCaller func(ctx context.Context, name string, args json.RawMessage) (ToolReply, error)

// Defaults for Config fields left zero.
const (
	DefaultIdleTimeout    = 5 * time.Minute
	DefaultInterruptGrace = 10 * time.Second
	DefaultMaxOutput      = 7 << 10
	DefaultMaxImage       = 1 << 20
	DefaultMaxText        = 32 << 10
	DefaultMaxDisplays    = 50
	DefaultMaxSpill       = 16 << 20
)

// Config configures a kernel. The zero value of each field means its default.
type Config struct {
	// Dir is the kernel's working directory (the run's workspace).
	Dir string
	// Tools is the bridge: what tool(name, args) inside a cell calls. Nil
	// means cells that call tool() get an error saying no tools are wired.
	Tools ToolCaller
	// IdleTimeout is the cell's idle budget: how long a cell may go without
	// output while no bridge call is outstanding. The clock stops while a
	// bridge call is outstanding and starts over with the full budget when it
	// returns, and each output (stream text, a display) starts it over too.
	IdleTimeout time.Duration
	// InterruptGrace is how long an interrupted cell has to come back before
	// the kernel is discarded (state lost).
	InterruptGrace time.Duration
	// MaxOutput bounds each of stdout and stderr, in bytes; the order of
	// their writes is kept while both together fit in twice that.
	MaxOutput int
	// MaxSpill bounds how much of each of stdout and stderr a cell keeps
	// whole past MaxOutput (Stream.Full), in bytes; negative keeps none.
	MaxSpill int
	// MaxText bounds each text or HTML representation of a displayed value.
	MaxText int
	// MaxDisplays bounds how many displays (figures included) one cell
	// returns; the rest are dropped and a notice says how many.
	MaxDisplays int
	// MaxImage bounds each PNG image, in bytes; larger figures are rendered
	// again smaller, or left out with a note.
	MaxImage int
	// Python is the configured python interpreter, used when the working
	// directory has no .venv/bin/python or venv/bin/python. Empty means
	// python3 from PATH.
	Python string
	// Env is extra environment (KEY=VALUE) for external interpreters.
	Env []string
	// Enclosure, when set, is asked each time an external interpreter starts
	// for the command prefix that runs a process inside the conversation's
	// enclosure (a container or sandbox that is already running), such as
	// ["docker", "exec", "-i", "-w", "/work", "c1"]; nil or empty means there
	// is none and the interpreter runs on the host. A kernel never starts an
	// enclosure to run in it. The JavaScript kernel (goja, in tether's
	// process or in a child of tether's own: kernels/jsproc) runs on the
	// host; its only way out is tool(), through the run.
	Enclosure func() []string
	// MemoryLimit caps the JavaScript kernel's heap growth during a cell, in
	// bytes (0: js.DefaultMemoryLimit): the cell is stopped at the cap with an
	// ErrMemoryLimit error.
	MemoryLimit int64
	// AddressSpaceLimit caps the Python kernel's address space, in bytes, as
	// RLIMIT_AS on the interpreter (inherited by what it starts): an
	// allocation past it is a MemoryError in the cell, and the error says which
	// cap it was. 0 means python.DefaultAddressSpaceLimit, negative no cap.
	// It counts mapped memory, not only what is used: an interpreter with
	// pandas and matplotlib loaded maps about 0.5 GiB.
	AddressSpaceLimit int64
	// ProcessLimit caps the processes and threads the Python kernel and
	// everything it starts may have at once, so a cell cannot fork-bomb the
	// host: a fork past it fails in the cell (BlockingIOError, EAGAIN). A
	// pids cgroup of the interpreter's own when tether can make one, else
	// RLIMIT_NPROC above the user's count at start (not enforced for root);
	// the first result's Limits say which. 0 means
	// python.DefaultProcessLimit, negative no cap.
	ProcessLimit int
	// NoZygote starts every Python kernel as an interpreter of its own.
	// Otherwise, where the sandbox confines kernels with namespaces, a view
	// and Landlock and no enclosure is asked, a kernel is forked from a
	// shared interpreter that compiled the driver once (a zygote), and
	// confines itself as the sandbox's launcher would before any cell:
	// about half the memory and start of its own interpreter
	// (kernels/RATIONALE.md).
	NoZygote bool
	// Clock gives the time of the idle budget (and JavaScript's Date). Nil
	// means the wall clock; a test gives one it moves by hand, so machine
	// load never decides whether a cell went idle.
	Clock Clock
}

// Clock is where a kernel gets the time and the timers of its idle budget.
type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) Timer
}

// Timer is a timer a Clock made; it behaves as a *time.Timer (Reset and Stop
// discard a value not yet received).
type Timer interface {
	C() <-chan time.Time
	Stop() bool
	Reset(d time.Duration) bool
}

// WallClock is the clock kernels use unless Config.Clock says otherwise.
var WallClock Clock = wallClock{}

type wallClock struct{}

func (wallClock) Now() time.Time                 { return time.Now() }
func (wallClock) NewTimer(d time.Duration) Timer { return wallTimer{time.NewTimer(d)} }

type wallTimer struct{ *time.Timer }

func (t wallTimer) C() <-chan time.Time { return t.Timer.C }

// WithDefaults returns c with zero fields set to their defaults.
func (c Config) WithDefaults() Config {
	setDefault(&c.IdleTimeout, DefaultIdleTimeout)
	setDefault(&c.InterruptGrace, DefaultInterruptGrace)
	setDefault(&c.MaxOutput, DefaultMaxOutput)
	if c.MaxSpill == 0 {
		c.MaxSpill = DefaultMaxSpill
	}
	setDefault(&c.MaxText, DefaultMaxText)
	setDefault(&c.MaxImage, DefaultMaxImage)
	setDefault(&c.MaxDisplays, DefaultMaxDisplays)
	if c.Clock == nil {
		c.Clock = WallClock
	}
	return c
}

// setDefault sets *v to def when it is zero or negative.
func setDefault[T ~int | ~int64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Constructor starts a kernel of one language.
type Constructor func(cfg Config) (Kernel, error)

// Factory starts kernels by language. Defaults is the base Config of every
// kernel; Dir and Tools are set per kernel by New.
type Factory struct {
	Defaults     Config
	Constructors map[Language]Constructor
}

// NewFactory returns a Factory with the given defaults and constructors.
func NewFactory(defaults Config, constructors map[Language]Constructor) *Factory {
	return &Factory{Defaults: defaults, Constructors: constructors}
}

// Languages lists the languages the factory can start, sorted.
func (f *Factory) Languages() []Language {
	var out []Language
	for l := range f.Constructors {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// New starts a kernel of the given language working in dir, whose cells call
// tools through call.
func (f *Factory) New(lang Language, dir string, call ToolCaller) (Kernel, error) {
	c, ok := f.Constructors[lang]
	if !ok {
		var names []string
		for _, l := range f.Languages() {
			names = append(names, string(l))
		}
		return nil, fmt.Errorf("kernels: no %s kernel in this build: available are %s", lang, strings.Join(names, ", "))
	}
	cfg := f.Defaults
	cfg.Dir = dir
	cfg.Tools = call
	return c(cfg)
}

// CallTimeout is the cause a caller gives a cell's context (with
// context.WithTimeoutCause) when its own per-call timeout passes, so the
// interrupted cell's message names the timeout rather than a caller that
// gave up.
type CallTimeout struct {
	// After is the timeout that passed.
	After time.Duration
}

func (e *CallTimeout) Error() string {
	return fmt.Sprintf("its per-call timeout of %s passed", e.After)
}

// StopReason says why ctx ended, for the message of the cell it interrupted:
// the call's own timeout (a CallTimeout cause), or the caller giving up.
func StopReason(ctx context.Context) string {
	var t *CallTimeout
	if errors.As(context.Cause(ctx), &t) {
		return t.Error()
	}
	return fmt.Sprintf("the caller gave up (%v)", ctx.Err())
}
