package python

import "encoding/json"
import "io"

import "github.com/tetherhq/tether/kernels/internal/wire"

// maxFrame bounds one frame of the driver protocol (64 MiB): a longer length
// prefix means the channel is corrupt.
const maxFrame = wire.Max

// frame is one message of the driver protocol. Fields not used by an op are
// left zero.
type frame struct {
	Op         string          `json:"op"`
	ID         int64           `json:"id,omitempty"`
	Code       string          `json:"code,omitempty"`
	Source     string          `json:"source,omitempty"` // the cell as written, for tracebacks
	MaxImage   int             `json:"max_image,omitempty"`
	MaxText    int             `json:"max_text,omitempty"`
	Name       string          `json:"name,omitempty"`
	Text       string          `json:"text,omitempty"`
	Parts      [][2]string     `json:"parts,omitempty"` // streams: [name, text] in order
	Args       json.RawMessage `json:"args,omitempty"`
	OK         bool            `json:"ok,omitempty"`
	Structured json.RawMessage `json:"structured,omitempty"`
	Data       *bundle         `json:"data,omitempty"`
	Error      *cellError      `json:"error,omitempty"`
	Python     string          `json:"python,omitempty"`
	Executable string          `json:"executable,omitempty"`
	PID        int             `json:"pid,omitempty"`
	RlimitAS   int64           `json:"rlimit_as,omitempty"` // ready: the address-space cap applied
	CapError   string          `json:"cap_error,omitempty"` // ready: why it could not be applied
	// ready: the RLIMIT_NPROC applied when asked for, and why it is not
	// enforced or could not be set
	RlimitNproc int64  `json:"rlimit_nproc,omitempty"`
	NprocNote   string `json:"nproc_note,omitempty"`
}

// bundle is a MIME bundle as the driver sends it (PNG base64-encoded by JSON).
type bundle struct {
	Text string `json:"text/plain"`
	HTML string `json:"text/html"`
	PNG  []byte `json:"image/png"`
	Note string `json:"note"`
}

type cellError struct {
	Name      string `json:"name"`
	Message   string `json:"message"`
	Traceback string `json:"traceback"`
	Line      int    `json:"line"`
}

// writeFrame writes v as one frame: a 4-byte big-endian length, then JSON.
func writeFrame(w io.Writer, v any) error { return wire.Write(w, "kernels: python", v) }

// readFrame reads one frame. io.EOF means the channel closed between frames;
// any other error means it is corrupt or broke mid-frame.
func readFrame(r io.Reader) (*frame, error) {
	f := new(frame)
	if err := wire.Read(r, "kernels: python", f); err != nil {
		return nil, err
	}
	if f.Op == "" {
		return nil, wire.NoOpError("kernels: python")
	}
	return f, nil
}
