package dapserve_test

import "bufio"
import "net"
import "strings"
import "testing"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/bridges/dap/internal/dapserve"

// TestServe: a request go-dap does not know is answered with the
// adapter's refusal, a launch with its handler's answer and then the
// initialized event, numbered in order; disconnect ends the loop.
func TestServe(t *testing.T) {
	ours, theirs := net.Pipe()
	defer theirs.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		dapserve.New(ours, "the test adapter").Serve(func(req godap.RequestMessage) (godap.ResponseMessage, error) {
			switch req.(type) {
			case *godap.LaunchRequest:
				return &godap.LaunchResponse{}, nil
			case *godap.DisconnectRequest:
				return &godap.DisconnectResponse{}, nil
			}
			return nil, nil
		})
	}()
	r := bufio.NewReader(theirs)
	read := func() godap.Message {
		t.Helper()
		m, err := godap.ReadProtocolMessage(r)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	req := func(seq int, command string) {
		t.Helper()
		go func() {
			_ = godap.WriteProtocolMessage(theirs, &godap.Request{ProtocolMessage: godap.ProtocolMessage{Seq: seq, Type: "request"}, Command: command})
		}()
	}
	req(1, "fooBar")
	if m, ok := read().(*godap.ErrorResponse); !ok || m.Success || m.RequestSeq != 1 || !strings.Contains(m.Message, "the test adapter does not serve fooBar") {
		t.Fatalf("an unknown request: %#v", m)
	}
	req(2, "launch")
	if m, ok := read().(*godap.LaunchResponse); !ok || !m.Success || m.Seq != 2 {
		t.Fatalf("launch: %#v", m)
	}
	if m, ok := read().(*godap.InitializedEvent); !ok || m.Seq != 3 {
		t.Fatalf("want initialized after launch: %#v", m)
	}
	req(3, "disconnect")
	if _, ok := read().(*godap.DisconnectResponse); !ok {
		t.Fatal("disconnect not answered")
	}
	<-done
}

func TestWindow(t *testing.T) {
	for _, c := range []struct{ start, count, total, from, to int }{
		{0, 0, 5, 0, 5}, {2, 2, 5, 2, 4}, {4, 9, 5, 4, 5}, {9, 1, 5, 5, 5}, {-3, 0, 5, 0, 5},
	} {
		if f, to := dapserve.Window(c.start, c.count, c.total); f != c.from || to != c.to {
			t.Errorf("Window(%d, %d, %d) = %d, %d; want %d, %d", c.start, c.count, c.total, f, to, c.from, c.to)
		}
	}
}
