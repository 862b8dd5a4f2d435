// Package wire is the framing of the protocol tether speaks with a kernel
// process (the Python driver, an out-of-process JavaScript kernel): a 4-byte
// big-endian length, then JSON. It is internal to kernels; it imports only
// the standard library.
package wire

import "encoding/binary"
import "encoding/json"
import "errors"
import "fmt"
import "io"

// Max bounds one frame (64 MiB): a longer length prefix means the channel is
// corrupt.
const Max = 64 << 20

// Write writes v as one frame. who prefixes errors ("kernels: python").
func Write(w io.Writer, who string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: encode frame: %w", who, err)
	}
	if len(data) > Max {
		return fmt.Errorf("%s: frame over 64 MiB: the frame channel is corrupt", who)
	}
	buf := make([]byte, 4+len(data))
	binary.BigEndian.PutUint32(buf, uint32(len(data)))
	copy(buf[4:], data)
	_, err = w.Write(buf)
	return err
}

// Read reads one frame into v (see Write). io.EOF means the channel
// closed between frames; any other error means it is corrupt or broke
// mid-frame.
func Read(r io.Reader, who string, v any) error {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return fmt.Errorf("%s: frame header cut short: %w", who, err)
		}
		return err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > Max {
		return fmt.Errorf("%s: frame over 64 MiB: the frame channel is corrupt", who)
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(r, data); err != nil {
		return fmt.Errorf("%s: frame body cut short (%d bytes announced): %w", who, n, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: malformed frame: %w", who, err)
	}
	return nil
}

// errNoOp is wrapped by the protocols' frame readers for a frame without op.
var errNoOp = errors.New("frame without op")

// NoOpError reports a frame that names no operation.
func NoOpError(who string) error { return fmt.Errorf("%s: %w", who, errNoOp) }
