package nodeadapter

import "bufio"
import "context"
import "crypto/rand"
import "crypto/sha1"
import "encoding/base64"
import "encoding/binary"
import "fmt"
import "io"
import "net"
import "net/http"
import "net/url"
import "sync"
import "time"

// wsConn is the client end of a WebSocket (RFC 6455) to node's inspector,
// as the line stream cdpConn reads and writes: each text message read is
// one line, each line written one text message. The inspector's JSON
// holds no raw newline.
type wsConn struct {
	c  net.Conn
	br *bufio.Reader

	wmu  sync.Mutex // one frame written at a time (pongs too)
	once sync.Once

	pending []byte // what Read has left of the current message
}

// wsGUID is the protocol's constant for the handshake's accept key.
const wsGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// dialWS opens a WebSocket to rawURL (ws://host:port/path).
func dialWS(ctx context.Context, rawURL string) (*wsConn, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "ws" || u.Host == "" {
		return nil, fmt.Errorf("the inspector's WebSocket URL %q is not ws://host:port/path", rawURL)
	}
	d := net.Dialer{}
	c, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	var raw [16]byte
	_, _ = rand.Read(raw[:])
	key := base64.StdEncoding.EncodeToString(raw[:])
	req := &http.Request{Method: "GET", URL: u, Host: u.Host, Header: http.Header{
		"Upgrade": {"websocket"}, "Connection": {"Upgrade"},
		"Sec-Websocket-Key": {key}, "Sec-Websocket-Version": {"13"},
	}}
	req.URL = &url.URL{Path: u.Path, RawQuery: u.RawQuery}
	if err := req.Write(c); err != nil {
		_ = c.Close()
		return nil, err
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	_ = resp.Body.Close()
	sum := sha1.Sum([]byte(key + wsGUID))
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-Websocket-Accept") != base64.StdEncoding.EncodeToString(sum[:]) {
		_ = c.Close()
		return nil, fmt.Errorf("the inspector at %s refused the WebSocket upgrade (%s); another debugger may be attached", u.Host, resp.Status)
	}
	_ = c.SetDeadline(time.Time{})
	return &wsConn{c: c, br: br}, nil
}

// Read returns the messages as lines.
func (w *wsConn) Read(p []byte) (int, error) {
	for len(w.pending) == 0 {
		msg, err := w.readMessage()
		if err != nil {
			return 0, err
		}
		w.pending = append(msg, '\n')
	}
	n := copy(p, w.pending)
	w.pending = w.pending[n:]
	return n, nil
}

// readMessage reads frames up to the end of one text or binary message,
// answering pings on the way; a close frame ends the stream.
func (w *wsConn) readMessage() ([]byte, error) {
	var msg []byte
	for {
		fin, op, payload, err := w.readFrame()
		if err != nil {
			return nil, err
		}
		switch op {
		case 0x8: // close
			return nil, io.EOF
		case 0x9: // ping
			if err := w.writeFrame(0xA, payload); err != nil {
				return nil, err
			}
			continue
		case 0xA: // pong
			continue
		}
		msg = append(msg, payload...)
		if len(msg) > maxCDPLine {
			return nil, fmt.Errorf("a message of more than %d bytes", maxCDPLine)
		}
		if fin {
			return msg, nil
		}
	}
}

// readFrame reads one frame (the server's are not masked).
func (w *wsConn) readFrame() (fin bool, op byte, payload []byte, err error) {
	var h [2]byte
	if _, err = io.ReadFull(w.br, h[:]); err != nil {
		return
	}
	fin, op = h[0]&0x80 != 0, h[0]&0x0F
	n := uint64(h[1] & 0x7F)
	switch n {
	case 126:
		var b [2]byte
		if _, err = io.ReadFull(w.br, b[:]); err != nil {
			return
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err = io.ReadFull(w.br, b[:]); err != nil {
			return
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	var mask [4]byte
	masked := h[1]&0x80 != 0
	if masked {
		if _, err = io.ReadFull(w.br, mask[:]); err != nil {
			return
		}
	}
	if n > maxCDPLine {
		return false, 0, nil, fmt.Errorf("a frame of %d bytes", n)
	}
	payload = make([]byte, n)
	if _, err = io.ReadFull(w.br, payload); err != nil {
		return
	}
	if masked {
		for i := range payload {
			payload[i] ^= mask[i%4]
		}
	}
	return fin, op, payload, nil
}

// Write sends one line (its newline dropped) as a text message.
func (w *wsConn) Write(p []byte) (int, error) {
	msg := p
	if len(msg) > 0 && msg[len(msg)-1] == '\n' {
		msg = msg[:len(msg)-1]
	}
	if err := w.writeFrame(0x1, msg); err != nil {
		return 0, err
	}
	return len(p), nil
}

// writeFrame writes one final frame of opcode op, masked as a client's
// must be.
func (w *wsConn) writeFrame(op byte, payload []byte) error {
	buf := make([]byte, 0, len(payload)+14)
	buf = append(buf, 0x80|op)
	switch n := len(payload); {
	case n < 126:
		buf = append(buf, 0x80|byte(n))
	case n <= 0xFFFF:
		buf = append(buf, 0x80|126)
		buf = binary.BigEndian.AppendUint16(buf, uint16(n))
	default:
		buf = append(buf, 0x80|127)
		buf = binary.BigEndian.AppendUint64(buf, uint64(n))
	}
	var mask [4]byte
	_, _ = rand.Read(mask[:])
	buf = append(buf, mask[:]...)
	for i, b := range payload {
		buf = append(buf, b^mask[i%4])
	}
	w.wmu.Lock()
	defer w.wmu.Unlock()
	_, err := w.c.Write(buf)
	return err
}

// Close says goodbye and closes the connection (once).
func (w *wsConn) Close() error {
	var err error
	w.once.Do(func() {
		_ = w.c.SetWriteDeadline(time.Now().Add(time.Second))
		_ = w.writeFrame(0x8, []byte{0x03, 0xE8}) // 1000: normal closure
		err = w.c.Close()
	})
	return err
}
