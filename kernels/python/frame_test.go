package python

import "bytes"
import "encoding/binary"
import "io"
import "testing"

func TestFrameRoundTrip(t *testing.T) {
	var b bytes.Buffer
	in := frame{Op: "exec", ID: 7, Code: "print('é')\n", MaxImage: 10}
	if err := writeFrame(&b, in); err != nil {
		t.Fatal(err)
	}
	if err := writeFrame(&b, frame{Op: "display", Data: &bundle{Text: "x", PNG: []byte{0x89, 'P'}}}); err != nil {
		t.Fatal(err)
	}
	f, err := readFrame(&b)
	if err != nil || f.Op != "exec" || f.ID != 7 || f.Code != in.Code || f.MaxImage != 10 {
		t.Fatalf("got %+v, %v", f, err)
	}
	f, err = readFrame(&b)
	if err != nil || f.Data == nil || !bytes.Equal(f.Data.PNG, []byte{0x89, 'P'}) {
		t.Fatalf("got %+v, %v", f, err)
	}
	if _, err := readFrame(&b); err != io.EOF {
		t.Fatalf("at end: %v, want io.EOF", err)
	}
}

func TestFrameErrors(t *testing.T) {
	huge := make([]byte, 4)
	binary.BigEndian.PutUint32(huge, maxFrame+1)
	tests := map[string][]byte{
		"cut header": {0, 0},
		"cut body":   {0, 0, 0, 10, '{'},
		"too large":  huge,
		"not json":   append([]byte{0, 0, 0, 3}, "abc"...),
		"no op":      append([]byte{0, 0, 0, 2}, "{}"...),
	}
	for name, in := range tests {
		_, err := readFrame(bytes.NewReader(in))
		if err == nil || err == io.EOF {
			t.Errorf("%s: err %v, want a corrupt-channel error", name, err)
		}
	}
}

func FuzzReadFrame(f *testing.F) {
	var b bytes.Buffer
	_ = writeFrame(&b, frame{Op: "stream", Name: "stdout", Text: "hi"})
	f.Add(b.Bytes())
	f.Add([]byte{0, 0, 0, 2, '{', '}'})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bytes.NewReader(in)
		for i := 0; i < 100; i++ {
			fr, err := readFrame(r)
			if err != nil {
				return
			}
			if fr.Op == "" {
				t.Fatal("frame without op accepted")
			}
			var out bytes.Buffer
			if err := writeFrame(&out, fr); err != nil {
				t.Fatal(err)
			}
			if _, err := readFrame(&out); err != nil {
				t.Fatalf("a frame we read does not round-trip: %v", err)
			}
		}
	})
}
