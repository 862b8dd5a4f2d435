package phpadapter

import "bufio"
import "bytes"
import "context"
import "errors"
import "io"
import "net"
import "strconv"
import "strings"
import "testing"
import "time"

// frameXML frames a message as Xdebug sends it: length, NUL, XML, NUL.
func frameXML(xml string) string {
	return strconv.Itoa(len(xml)) + "\x00" + xml + "\x00"
}

const initXML = `<?xml version="1.0" encoding="iso-8859-1"?>
<init xmlns="urn:debugger_protocol_v1" fileuri="file:///p/a%20b.php" language="PHP" protocol_version="1.0" appid="1"><engine version="3.2.0"><![CDATA[Xdebug]]></engine></init>`

const contextXML = `<?xml version="1.0" encoding="iso-8859-1"?>
<response xmlns="urn:debugger_protocol_v1" command="context_get" transaction_id="1" context="0"><property name="$s" fullname="$s" type="string" size="5" encoding="base64"><![CDATA[aMOpbGw=]]></property><property name="$o" fullname="$o" type="object" classname="P" children="1" numchildren="3" page="0" pagesize="100"><property name="a" fullname="$o-&gt;a" facet="public" type="int"><![CDATA[1]]></property></property></response>`

// TestReadPacket: a well-formed packet is read whole; a malformed length,
// one over the limit, a packet cut short or not NUL-terminated is an
// error that says which, never a hang or a huge allocation.
func TestReadPacket(t *testing.T) {
	p, err := readPacket(bufio.NewReader(strings.NewReader(frameXML(initXML) + frameXML("<x/>"))))
	if err != nil || string(p) != initXML {
		t.Fatalf("readPacket = %q, %v", p, err)
	}
	for _, c := range []struct{ in, want string }{
		{"", "EOF"},
		{"12", "unexpected EOF"},
		{"\x00<x/>\x00", "empty packet length"},
		{"1a\x00", "malformed packet length"},
		{"-1\x00", "malformed packet length"},
		{"1234567890\x00", "malformed packet length"},
		{"999999999\x00", "over the"},
		{"10\x00<x/>", "cut short"},
		{"3\x00<x/>\x00", "does not end with NUL"},
	} {
		_, err := readPacket(bufio.NewReader(strings.NewReader(c.in)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("readPacket(%q) = %v, want an error saying %q", c.in, err, c.want)
		}
	}
}

// TestParsePacket: init, a context's properties (a base64 string, an
// object with a member) parse to what DAP shows; XML that is broken or no
// DBGp message is refused.
func TestParsePacket(t *testing.T) {
	init, err := parsePacket([]byte(initXML))
	if err != nil || init.XMLName.Local != "init" || uriPath(init.FileURI) != "/p/a b.php" {
		t.Fatalf("init: %+v, %v", init, err)
	}
	p, err := parsePacket([]byte(contextXML))
	if err != nil || len(p.Props) != 2 {
		t.Fatalf("context_get: %+v, %v", p, err)
	}
	if v := value(p.Props[0]); v != `"héll"` {
		t.Errorf("a string: %s", v)
	}
	if v := value(p.Props[1]); v != "P{3}" || p.Props[1].Props[0].Fullname != "$o->a" {
		t.Errorf("an object: %s, its member %+v", v, p.Props[1].Props)
	}
	cut := prop{Type: "string", Encoding: "base64", Value: "YWI=", Size: 70000}
	if v := value(cut); !strings.Contains(v, "2 of 70000 bytes") {
		t.Errorf("a cut string should say how long it is: %s", v)
	}
	for _, bad := range []string{"<response", "<html></html>", "plain text", `<response transaction_id="1"><property numchildren="many"/></response>`} {
		if _, err := parsePacket([]byte(bad)); err == nil {
			t.Errorf("parsePacket(%q) should fail", bad)
		}
	}
}

// TestDBGpConnFaults: over a fake Xdebug, an answer to no command is
// dropped, a command's argument holding NUL is refused before it is
// written, and a malformed packet ends the connection: the waiting
// command fails at once, saying why, instead of hanging.
func TestDBGpConnFaults(t *testing.T) {
	ours, theirs := net.Pipe()
	defer theirs.Close()
	go func() { _, _ = io.WriteString(theirs, frameXML(initXML)) }()
	x, _, err := newDBGpConn(ours, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.close()
	if _, err := x.send("property_get", []string{"-n", "$a\x00run -i 9"}, ""); err == nil || !strings.Contains(err.Error(), "NUL") {
		t.Fatalf("a NUL in an argument should be refused: %v", err)
	}
	sent := make(chan string, 1)
	go func() {
		cmd, _ := bufio.NewReader(theirs).ReadString(0)
		sent <- cmd
	}()
	ch, err := x.send("stack_get", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if cmd := <-sent; cmd != "stack_get -i 2\x00" {
		t.Fatalf("command sent: %q", cmd)
	}
	stray := `<response command="stack_get" transaction_id="77"></response>`
	go func() { _, _ = io.WriteString(theirs, frameXML(stray)+"5\x00<bad>\x00") }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = x.await(ctx, "stack_get", ch)
	if !errors.Is(err, errClosed) || !strings.Contains(err.Error(), "malformed message") {
		t.Fatalf("a malformed packet should end the connection and say so: %v", err)
	}
}

// FuzzReadPacket: whatever bytes arrive, reading and parsing returns a
// packet within the size limit or an error, and never panics.
func FuzzReadPacket(f *testing.F) {
	f.Add([]byte(frameXML(initXML)))
	f.Add([]byte(frameXML(contextXML)))
	f.Add([]byte(frameXML(`<stream type="stdout" encoding="base64"><![CDATA[aGk=]]></stream>`)))
	f.Add([]byte("3\x00<a>\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReader(bytes.NewReader(data))
		for i := 0; i < 4; i++ {
			p, err := readPacket(r)
			if err != nil {
				return
			}
			if len(p) > maxPacket {
				t.Fatalf("packet of %d bytes read past the limit", len(p))
			}
			if pk, err := parsePacket(p); err == nil {
				for _, pr := range pk.Props {
					_ = value(pr)
				}
			}
		}
	})
}
