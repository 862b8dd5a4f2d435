package engine

import "os"
import "path/filepath"
import "runtime"
import "time"

// Config configures an Engine. It is immutable: every With method returns a
// changed copy, so a Config can be shared and derived from freely. Start from
// NewConfig.
type Config struct {
	cacheDir    string // "" with cacheOff false: the default dir
	cacheOff    bool
	memoryLimit uint64 // bytes, the hard cap of every instance
	hardCancel  bool
	limits      Limits
}

// DefaultMemoryLimit is the default hard cap on one instance's linear memory.
const DefaultMemoryLimit = 1 << 30

// NewConfig returns the default configuration: wazero's compilation cache on
// disk under the user cache dir (tether/wazero), a 1 GiB hard memory cap per
// instance, and DefaultLimits for Engine.Parse.
func NewConfig() Config {
	return Config{memoryLimit: DefaultMemoryLimit, limits: DefaultLimits()}
}

// WithCompilationCacheDir keeps wazero's compiled code in dir, so a second
// process starts warm. An empty dir selects the default (the user cache dir's
// tether/wazero).
func (c Config) WithCompilationCacheDir(dir string) Config {
	c.cacheDir = dir
	c.cacheOff = false
	return c
}

// WithoutCompilationCache compiles every module afresh in each process.
func (c Config) WithoutCompilationCache() Config {
	c.cacheDir = ""
	c.cacheOff = true
	return c
}

// WithMemoryLimit sets the hard cap, in bytes (rounded up to 64 KiB pages), on
// the linear memory of every instance the engine creates, for every tenant.
// Per-tenant caps (Limits.Memory) can only be lower.
func (c Config) WithMemoryLimit(bytes uint64) Config {
	c.memoryLimit = bytes
	return c
}

// WithHardCancel makes wazero stop a call when its context is done even inside
// code that never checks for cancellation (WithCloseOnContextDone); the
// instance is then dropped and its pool makes a new one. Parses already stop
// cooperatively without it; it halves parse throughput (bench/README.md).
func (c Config) WithHardCancel(on bool) Config {
	c.hardCancel = on
	return c
}

// WithLimits sets the limits of the engine's own default tenant, used by
// Engine.Parse. Parsers from NewParser carry their own.
func (c Config) WithLimits(l Limits) Config {
	c.limits = l
	return c
}

func (c Config) cachePath() string {
	if c.cacheOff {
		return ""
	}
	if c.cacheDir != "" {
		return c.cacheDir
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "tether", "wazero")
}

// Limits are one tenant's limits. The zero value of a field means its default.
type Limits struct {
	// Memory caps each instance's linear memory in bytes: the grammar's
	// tables, the parser's heap, the source and the node table (default and
	// maximum: the engine's memory limit). An input that needs more fails
	// with an error wrapping ErrMemoryLimit, and the instance is replaced.
	Memory uint64
	// Timeout bounds each parse in addition to its context (0: none).
	Timeout time.Duration
	// CustomTimeout bounds each parse of a custom language, and the
	// loading of its module, in addition to Timeout (default
	// DefaultCustomTimeout): a grammar tether did not build may loop
	// where the shipped ones cannot, and is then stopped with an error
	// wrapping ErrCustomTimeout.
	CustomTimeout time.Duration
	// Instances is the most instances per language, which is the most parses
	// of one language at a time (default GOMAXPROCS).
	Instances int
	// MaxSource is the largest source accepted, in bytes (default 64 MiB).
	MaxSource int
	// Retain is the most linear memory an idle instance keeps, in bytes
	// (default 64 MiB): one that a parse grew past it is closed after the
	// parse, releasing the memory, and the next parse starts a fresh
	// instance. A short-lived process that parses each file once (tether
	// ast-grep) sets it low, so its instances do not each hold the memory
	// of the largest file they have parsed.
	Retain uint64
}

// DefaultMaxSource is the default of Limits.MaxSource.
const DefaultMaxSource = 64 << 20

// DefaultLimits returns the limits used when none are given: no timeout beyond
// the caller's context, GOMAXPROCS instances per language, the engine's memory
// cap, 64 MiB sources.
func DefaultLimits() Limits {
	return Limits{Instances: runtime.GOMAXPROCS(0), MaxSource: DefaultMaxSource}
}

func (l Limits) withDefaults(engineMemory uint64) Limits {
	if l.Instances <= 0 {
		l.Instances = runtime.GOMAXPROCS(0)
	}
	if l.MaxSource <= 0 {
		l.MaxSource = DefaultMaxSource
	}
	if l.Retain == 0 {
		l.Retain = retainMemory
	}
	if l.CustomTimeout <= 0 {
		l.CustomTimeout = DefaultCustomTimeout
	}
	if l.Memory == 0 || l.Memory > engineMemory {
		l.Memory = engineMemory
	}
	return l
}

func pagesOf(bytes uint64) uint32 {
	p := (bytes + 65535) / 65536
	if p > 65536 {
		p = 65536
	}
	if p == 0 {
		p = 1
	}
	return uint32(p)
}
