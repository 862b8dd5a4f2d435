package engine

import "context"
import "encoding/binary"
import "sync/atomic"

import "github.com/tetratelabs/wazero"
import "github.com/tetratelabs/wazero/api"

// wasiModule is the module name of WASI preview 1, which wasi-libc imports.
const wasiModule = "wasi_snapshot_preview1"

// WASI errno values the functions below return.
const (
	errnoSuccess = 0
	errnoBadf    = 8
	errnoFault   = 21
	errnoInval   = 28
	errnoSpipe   = 70
)

// wasiFuncs are the WASI functions a grammar module may import: what
// wasi-libc links into the tree-sitter runtime for stdio (its abort
// message) and the clock. Nothing else exists for a module to call: no
// file, directory, socket, environment, argument or random source.
var wasiFuncs = map[string]bool{"fd_write": true, "fd_seek": true, "fd_close": true, "clock_time_get": true}

// fakeWalltime is the wall clock a module reads (2022-01-01T00:00:00Z, as
// wazero's fake clock): a parse must not depend on the time.
const fakeWalltime = 1640995200 * 1e9

// instantiateWASI instantiates the WASI subset on r: stdout and stderr
// take writes and drop them, every other descriptor is closed, the wall
// clock stands still and the monotonic clock moves a millisecond a read.
func instantiateWASI(ctx context.Context, r wazero.Runtime) error {
	i32, i64 := api.ValueTypeI32, api.ValueTypeI64
	var nanotime atomic.Int64
	b := r.NewHostModuleBuilder(wasiModule)
	b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(fdWrite), []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}).
		WithParameterNames("fd", "iovs", "iovs_len", "result.nwritten").Export("fd_write")
	b.NewFunctionBuilder().WithGoFunction(api.GoFunc(func(_ context.Context, stack []uint64) {
		fd := int32(stack[0])
		stack[0] = errnoBadf
		if fd >= 0 && fd <= 2 {
			stack[0] = errnoSpipe
		}
	}), []api.ValueType{i32, i64, i32, i32}, []api.ValueType{i32}).
		WithParameterNames("fd", "offset", "whence", "result.newoffset").Export("fd_seek")
	b.NewFunctionBuilder().WithGoFunction(api.GoFunc(func(_ context.Context, stack []uint64) {
		stack[0] = errnoBadf
	}), []api.ValueType{i32}, []api.ValueType{i32}).
		WithParameterNames("fd").Export("fd_close")
	b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, m api.Module, stack []uint64) {
		var t uint64
		switch uint32(stack[0]) {
		case 0: // realtime
			t = fakeWalltime
		case 1: // monotonic
			t = uint64(nanotime.Add(1e6))
		default:
			stack[0] = errnoInval
			return
		}
		stack[0] = errnoSuccess
		if !m.Memory().WriteUint64Le(uint32(stack[2]), t) {
			stack[0] = errnoFault
		}
	}), []api.ValueType{i32, i64, i32}, []api.ValueType{i32}).
		WithParameterNames("id", "precision", "result.timestamp").Export("clock_time_get")
	_, err := b.Instantiate(ctx)
	return err
}

// fdWrite takes writes to stdout and stderr and drops them, saying every
// byte was written; any other descriptor is closed.
func fdWrite(_ context.Context, m api.Module, stack []uint64) {
	fd, iovs, n, result := int32(stack[0]), uint32(stack[1]), uint32(stack[2]), uint32(stack[3])
	if fd != 1 && fd != 2 {
		stack[0] = errnoBadf
		return
	}
	if n > 1<<20 {
		stack[0] = errnoInval
		return
	}
	vecs, ok := m.Memory().Read(iovs, n*8)
	if !ok {
		stack[0] = errnoFault
		return
	}
	var total uint32
	for i := uint32(0); i < n; i++ {
		total += binary.LittleEndian.Uint32(vecs[i*8+4:])
	}
	stack[0] = errnoSuccess
	if !m.Memory().WriteUint32Le(result, total) {
		stack[0] = errnoFault
	}
}
