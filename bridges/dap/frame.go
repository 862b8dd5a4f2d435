package dap

import "bufio"
import "errors"
import "fmt"
import "io"
import "strconv"
import "strings"

// maxFrame bounds one message's content, as go-dap's reader does.
const maxFrame = 4 << 20

// maxHeader bounds one frame's header block.
const maxHeader = 4096

// maxStray bounds the stray output read before one frame's header.
const maxStray = 64 << 10

// readFrame reads one base-protocol message: header fields, each ended by
// CRLF, up to an empty line, then Content-Length bytes of content. Fields
// other than Content-Length are skipped: Perl::LanguageServer sends
// Content-Type too, as the base protocol allows, which go-dap's reader
// refuses.
//
// Lines before a frame's first field that are no header field (blank, or
// no "name:" with a name free of spaces) are stray output, handed to stray
// (blank ones dropped), as a client such as VS Code's passes over them:
// rdbg writes its console protocol's "out ..." lines to the socket when
// the program prints before the DAP greeting is read. At most maxStray
// bytes of it come before one frame.
func readFrame(r *bufio.Reader, stray func(line string)) ([]byte, error) {
	length, read, strayed := -1, 0, 0
	for {
		line, err := r.ReadString('\n')
		text := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		name, value, ok := strings.Cut(text, ":")
		isStray := read == 0 && (!ok || name == "" || strings.ContainsAny(name, " \t"))
		if err != nil {
			if isStray && text != "" && stray != nil {
				stray(text)
			} else if err == io.EOF && read+len(line) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if isStray {
			if strayed += len(line); strayed > maxStray {
				return nil, fmt.Errorf("the adapter wrote over %d bytes that are not DAP before a frame", maxStray)
			}
			if text != "" && stray != nil {
				stray(text)
			}
			continue
		}
		if read += len(line); read > maxHeader {
			return nil, fmt.Errorf("a frame's header is over %d bytes", maxHeader)
		}
		if text == "" {
			if length < 0 {
				return nil, errors.New("a frame's header has no Content-Length")
			}
			break
		}
		if !ok {
			return nil, fmt.Errorf("a frame's header line %q is not name: value", text)
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
