package dap

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxFrame bounds one message's content, as go-dap's reader does.
const maxFrame = 4 << 20

// maxHeader bounds one frame's header block.
const maxHeader = 4096

// readFrame reads one base-protocol message: header fields, each ended by
// CRLF, up to an empty line, then Content-Length bytes of content. Fields
// other than Content-Length are skipped: Perl::LanguageServer sends
// Content-Type too, as the base protocol allows, which go-dap's reader
// refuses.
func readFrame(r *bufio.Reader) ([]byte, error) {
	length, read := -1, 0
	for {
		line, err := r.ReadString('\n')
		read += len(line)
		if err != nil {
			if err == io.EOF && read > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if read > maxHeader {
			return nil, fmt.Errorf("a frame's header is over %d bytes", maxHeader)
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if line == "" {
			if length < 0 {
				return nil, errors.New("a frame's header has no Content-Length")
			}
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("a frame's header line %q is not name: value", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("a frame's Content-Length %q is not a length", value)
			}
			length = n
		}
	}
	if length > maxFrame {
		return nil, fmt.Errorf("a frame's content of %d bytes is over %d", length, maxFrame)
	}
	content := make([]byte, length)
	if _, err := io.ReadFull(r, content); err != nil {
		return nil, err
	}
	return content, nil
}
