package phpadapter

import "bufio"
import "bytes"
import "context"
import "encoding/base64"
import "encoding/xml"
import "errors"
import "fmt"
import "io"
import "strconv"
import "strings"
import "sync"
import "time"

// maxPacket bounds one DBGp message. Values are cut by Xdebug at max_data
// (featureMaxData) and children come a page at a time, so a larger packet
// is no answer tether asked for.
const maxPacket = 8 << 20

// maxLengthDigits bounds the decimal length that starts a packet.
const maxLengthDigits = 9

// writeTimeout bounds writing one command.
const writeTimeout = 30 * time.Second

// errClosed is the error of a command whose connection closed before its
// answer came: the program ended, or tether stopped it.
var errClosed = errors.New("the PHP program's debugger connection closed")

// readPacket reads one DBGp message from Xdebug: its length in decimal,
// NUL, that many bytes of XML, NUL.
func readPacket(r *bufio.Reader) ([]byte, error) {
	var n int
	digits := 0
	for {
		b, err := r.ReadByte()
		if err != nil {
			if err == io.EOF && digits > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if b == 0 {
			break
		}
		if b < '0' || b > '9' || digits == maxLengthDigits {
			return nil, fmt.Errorf("dbgp: malformed packet length (byte %q after %d digits)", b, digits)
		}
		n = n*10 + int(b-'0')
		digits++
	}
	if digits == 0 {
		return nil, errors.New("dbgp: empty packet length")
	}
	if n > maxPacket {
		return nil, fmt.Errorf("dbgp: packet of %d bytes is over the %d-byte limit", n, maxPacket)
	}
	buf := make([]byte, n+1)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("dbgp: packet cut short: %w", io.ErrUnexpectedEOF)
	}
	if buf[n] != 0 {
		return nil, errors.New("dbgp: packet does not end with NUL where its length says")
	}
	return buf[:n], nil
}

// packet is one parsed DBGp message: init, response, stream or notify.
type packet struct {
	XMLName xml.Name
	// init
	FileURI  string `xml:"fileuri,attr"`
	Language string `xml:"language,attr"`
	// response
	Command       string    `xml:"command,attr"`
	TransactionID string    `xml:"transaction_id,attr"`
	Status        string    `xml:"status,attr"`
	Reason        string    `xml:"reason,attr"`
	ID            string    `xml:"id,attr"` // breakpoint_set's breakpoint id
	Error         *dbgpErr  `xml:"error"`
	Message       *stopMsg  `xml:"message"` // xdebug:message: where a run stopped
	Stack         []frame   `xml:"stack"`
	Contexts      []ctxName `xml:"context"`
	Props         []prop    `xml:"property"`
	// stream
	Type     string `xml:"type,attr"`
	Encoding string `xml:"encoding,attr"`
	Text     string `xml:",chardata"`
}

type dbgpErr struct {
	Code    int    `xml:"code,attr"`
	Message string `xml:"message"`
}

type stopMsg struct {
	Filename  string `xml:"filename,attr"`
	Lineno    int    `xml:"lineno,attr"`
	Exception string `xml:"exception,attr"`
	Text      string `xml:",chardata"`
}

type frame struct {
	Where    string `xml:"where,attr"`
	Level    int    `xml:"level,attr"`
	Type     string `xml:"type,attr"`
	Filename string `xml:"filename,attr"`
	Lineno   int    `xml:"lineno,attr"`
}

type ctxName struct {
	Name string `xml:"name,attr"`
	ID   int    `xml:"id,attr"`
}

// prop is a DBGp property: a variable, an element or member of one, or an
// eval result; Props are the children of its page Page.
type prop struct {
	Name        string `xml:"name,attr"`
	Fullname    string `xml:"fullname,attr"`
	Type        string `xml:"type,attr"`
	Classname   string `xml:"classname,attr"`
	Facet       string `xml:"facet,attr"`
	Children    int    `xml:"children,attr"`
	NumChildren int    `xml:"numchildren,attr"`
	Page        int    `xml:"page,attr"`
	PageSize    int    `xml:"pagesize,attr"`
	Size        int    `xml:"size,attr"`
	Encoding    string `xml:"encoding,attr"`
	Value       string `xml:",chardata"`
	Props       []prop `xml:"property"`
}

// parsePacket parses one message. Xdebug declares iso-8859-1 and sends
// PHP's bytes, UTF-8 in practice; they are read as they are.
func parsePacket(data []byte) (*packet, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	var p packet
	if err := d.Decode(&p); err != nil {
		return nil, fmt.Errorf("dbgp: malformed message: %w", err)
	}
	switch p.XMLName.Local {
	case "init", "response", "stream", "notify":
		return &p, nil
	}
	return nil, fmt.Errorf("dbgp: unknown message <%s>", p.XMLName.Local)
}

// decode is a value as Xdebug sent it: base64 decoded where it says so.
func decode(encoding, text string) (string, error) {
	if encoding != "base64" {
		return text, nil
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(text))
	if err != nil {
		return "", fmt.Errorf("dbgp: value not base64: %w", err)
	}
	return string(b), nil
}

// dbgpConn is a DBGp connection to one Xdebug: commands go out with a
// transaction id (-i) and their answers are matched by it.
type dbgpConn struct {
	rw     io.ReadWriteCloser
	r      *bufio.Reader
	wmu    sync.Mutex
	mu     sync.Mutex
	nextID int
	wait   map[string]chan *packet
	done   chan struct{} // closed when the connection is read to its end
	err    error         // why it ended, once done is closed
	stream func(kind, text string)
}

// newDBGpConn reads the init packet from rw; the reader then runs until
// the connection ends, handing stream packets to stream.
func newDBGpConn(rw io.ReadWriteCloser, stream func(kind, text string)) (*dbgpConn, *packet, error) {
	c := &dbgpConn{rw: rw, r: bufio.NewReaderSize(rw, 64<<10), wait: map[string]chan *packet{}, done: make(chan struct{}), stream: stream}
	data, err := readPacket(c.r)
	if err != nil {
		return nil, nil, err
	}
	init, err := parsePacket(data)
	if err != nil {
		return nil, nil, err
	}
	if init.XMLName.Local != "init" {
		return nil, nil, fmt.Errorf("dbgp: the first message is <%s>, not <init>", init.XMLName.Local)
	}
	go c.read()
	return c, init, nil
}

// read dispatches packets until the connection ends or sends what is no
// DBGp: a response goes to its command, a stream to stream, notifications
// are dropped.
func (c *dbgpConn) read() {
	var err error
	for {
		var data []byte
		if data, err = readPacket(c.r); err != nil {
			break
		}
		var p *packet
		if p, err = parsePacket(data); err != nil {
			break
		}
		switch p.XMLName.Local {
		case "response":
			c.mu.Lock()
			ch := c.wait[p.TransactionID]
			delete(c.wait, p.TransactionID)
			c.mu.Unlock()
			if ch != nil {
				ch <- p
			}
		case "stream":
			if text, derr := decode(p.Encoding, p.Text); derr == nil && c.stream != nil {
				c.stream(p.Type, text)
			}
		}
	}
	if errors.Is(err, io.EOF) {
		err = errClosed
	}
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
	close(c.done)
	_ = c.rw.Close()
}

// quoteArg quotes a command argument as DBGp reads it.
func quoteArg(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// send writes command name with args (flag, value pairs; values quoted)
// and data (base64-encoded after --), and returns where its answer comes.
func (c *dbgpConn) send(name string, args []string, data string) (chan *packet, error) {
	c.mu.Lock()
	c.nextID++
	id := strconv.Itoa(c.nextID)
	ch := make(chan *packet, 1)
	c.wait[id] = ch
	c.mu.Unlock()
	var b strings.Builder
	b.WriteString(name + " -i " + id)
	for i := 0; i+1 < len(args); i += 2 {
		if strings.IndexByte(args[i+1], 0) >= 0 {
			c.forget(id)
			return nil, fmt.Errorf("dbgp: %s: argument %s holds a NUL byte", name, args[i])
		}
		b.WriteString(" " + args[i] + " " + quoteArg(args[i+1]))
	}
	if data != "" {
		b.WriteString(" -- " + base64.StdEncoding.EncodeToString([]byte(data)))
	}
	b.WriteByte(0)
	c.wmu.Lock()
	// A debuggee that stops reading does not hold the adapter for good.
	if d, ok := c.rw.(interface{ SetWriteDeadline(time.Time) error }); ok {
		_ = d.SetWriteDeadline(time.Now().Add(writeTimeout))
	}
	_, err := io.WriteString(c.rw, b.String())
	c.wmu.Unlock()
	if err != nil {
		c.forget(id)
		return nil, errClosed
	}
	return ch, nil
}

func (c *dbgpConn) forget(id string) {
	c.mu.Lock()
	delete(c.wait, id)
	c.mu.Unlock()
}

// await waits for a command's answer; a DBGp error is an error.
func (c *dbgpConn) await(ctx context.Context, name string, ch chan *packet) (*packet, error) {
	select {
	case p := <-ch:
		if p.Error != nil {
			return p, fmt.Errorf("%s: Xdebug error %d: %s", name, p.Error.Code, strings.TrimSpace(p.Error.Message))
		}
		return p, nil
	case <-c.done:
		c.mu.Lock()
		err := c.err
		c.mu.Unlock()
		if err != errClosed {
			err = fmt.Errorf("%w: %w", errClosed, err)
		}
		return nil, err
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: no answer from Xdebug: %w", name, ctx.Err())
	}
}

// call sends a command and waits for its answer.
func (c *dbgpConn) call(ctx context.Context, name string, args []string, data string) (*packet, error) {
	ch, err := c.send(name, args, data)
	if err != nil {
		return nil, err
	}
	return c.await(ctx, name, ch)
}

func (c *dbgpConn) close() {
	_ = c.rw.Close()
	<-c.done
}
