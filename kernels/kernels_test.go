package kernels_test

import "context"
import "errors"
import "fmt"
import "strings"
import "testing"
import "unicode/utf8"

import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/std"

func TestStreamBuffer(t *testing.T) {
	b := kernels.NewStreamBuffer(100)
	b.WriteString("short")
	if s := b.Stream(); s.Text != "short" || s.Cut != 0 {
		t.Fatalf("%+v", s)
	}
	b = kernels.NewStreamBuffer(100)
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(b, "%04d\n", i)
	}
	s := b.Stream()
	if s.Cut != 5000-100 || !strings.HasPrefix(s.Text, "0000\n") || !strings.HasSuffix(s.Text, "0999\n") || !strings.Contains(s.Text, "4900 bytes not shown") {
		t.Fatalf("cut %d:\n%s", s.Cut, s.Text)
	}
	if b.Len() != 5000 {
		t.Errorf("Len %d", b.Len())
	}
}

func TestCutTextKeepsRunes(t *testing.T) {
	got, note := kernels.CutText("ééé", 3)
	if got != "é" || note != "text cut: 2 of 6 bytes shown" {
		t.Errorf("%q %q", got, note)
	}
	if got, note := kernels.CutText("abc", 10); got != "abc" || note != "" {
		t.Errorf("%q %q", got, note)
	}
}

func TestTrimTraceback(t *testing.T) {
	in := "Error\n" + strings.Repeat("  at r (cell:1)\n", 500) + "  at cell:2"
	got := kernels.TrimTraceback(in, 1000)
	if got != "Error\n  at r (cell:1)\n  [previous line repeated 499 more times]\n  at cell:2" {
		t.Errorf("%q", got)
	}
}

func TestParseLanguage(t *testing.T) {
	for in, want := range map[string]kernels.Language{"": kernels.Python, "py": kernels.Python, "JavaScript": kernels.JavaScript, "js": kernels.JavaScript} {
		if got, err := kernels.ParseLanguage(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	if _, err := kernels.ParseLanguage("ruby"); err == nil || !strings.HasPrefix(err.Error(), "kernels: ") {
		t.Errorf("ruby: %v", err)
	}
}

func TestFactory(t *testing.T) {
	f := std.NewFactory(kernels.Config{}, nil)
	if got := fmt.Sprint(f.Languages()); got != "[javascript python]" {
		t.Errorf("languages %s", got)
	}
	k, err := f.New(kernels.JavaScript, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	r, err := k.Execute(context.Background(), kernels.Cell{Code: "1 + 1"})
	if err != nil || r.Value == nil || r.Value.Text != "2" {
		t.Fatalf("%+v %v", r, err)
	}
	empty := kernels.NewFactory(kernels.Config{}, nil)
	if _, err := empty.New(kernels.Python, "", nil); err == nil || !strings.Contains(err.Error(), "no python kernel") {
		t.Errorf("%v", err)
	}
}

// Example shows a cell's echoed value.
func Example() {
	k, _ := std.NewFactory(kernels.Config{}, nil).New(kernels.JavaScript, ".", nil)
	defer k.Close()
	r, _ := k.Execute(context.Background(), kernels.Cell{Code: "const xs = [1, 2, 3];\nxs.map(x => x * x)", Label: "square a few numbers"})
	fmt.Println(r.Value.Text)
	// Output: [ 1, 4, 9 ]
}

// TestCollapseCR: a carriage return starts its line over, as a notebook
// shows a progress bar; CRLF line endings stay.
func TestCollapseCR(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain\ntext\n", "plain\ntext\n"},
		{"\r50%\r100%\n", "100%\n"},
		{"a\r\nb\r\n", "a\r\nb\r\n"},
		{"  0%|          | 0/3\r 33%|###3      | 1/3\r100%|##########| 3/3\ndone\n", "100%|##########| 3/3\ndone\n"},
		{"left\rover", "over"},
		{"ends with\r", ""},
	} {
		if got := kernels.CollapseCR(tt.in); got != tt.want {
			t.Errorf("CollapseCR(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	b := kernels.NewStreamBuffer(1000)
	b.WriteString("step\r")
	b.WriteString("step 2 of 2\n")
	if got := b.Stream().Text; got != "step 2 of 2\n" {
		t.Errorf("stream across writes: %q", got)
	}
}

// TestStreamBufferCutsOnRunes: the head and tail kept around a cut start and
// end on whole characters.
func TestStreamBufferCutsOnRunes(t *testing.T) {
	b := kernels.NewStreamBuffer(100)
	for i := 0; i < 500; i++ {
		b.WriteString("é")
	}
	s := b.Stream()
	if s.Cut == 0 || !utf8.ValidString(s.Text) {
		t.Fatalf("cut %d, valid %v:\n%q", s.Cut, utf8.ValidString(s.Text), s.Text)
	}
}

// TestStreamBufferKeepAll: with KeepAll the buffer hands over the whole
// output when the text was cut, up to its limit, and counts what is past it.
func TestStreamBufferKeepAll(t *testing.T) {
	for _, tt := range []struct {
		name            string
		write           int
		limit           int
		wantFull        int
		wantFullCut     int64
		wantNoFullAtAll bool
	}{
		{name: "fits: nothing to hand over", write: 50, limit: 1000, wantNoFullAtAll: true},
		{name: "cut: all of it", write: 500, limit: 1000, wantFull: 500},
		{name: "past the limit: counted", write: 1500, limit: 1000, wantFull: 1000, wantFullCut: 500},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := kernels.NewStreamBuffer(100).KeepAll(tt.limit)
			for i := 0; i < tt.write; i++ {
				b.WriteString("y")
			}
			s := b.Stream()
			if tt.wantNoFullAtAll {
				if s.Full != "" || s.Cut != 0 {
					t.Errorf("uncut stream: %+v", s)
				}
				return
			}
			if len(s.Full) != tt.wantFull || s.FullCut != tt.wantFullCut || s.Cut == 0 {
				t.Errorf("Full %d bytes, FullCut %d, Cut %d; want %d, %d", len(s.Full), s.FullCut, s.Cut, tt.wantFull, tt.wantFullCut)
			}
		})
	}
}

// TestErrorKinds: a cell's Error is an error whose kernel-level kind
// errors.Is finds, and a language exception is none of those kinds.
func TestErrorKinds(t *testing.T) {
	var err error = &kernels.Error{Name: kernels.KindInterrupted, Message: "idle for 10s"}
	if !errors.Is(err, kernels.ErrInterrupted) || errors.Is(err, kernels.ErrKernelDied) {
		t.Errorf("errors.Is on %v: interrupted %v, died %v", err, errors.Is(err, kernels.ErrInterrupted), errors.Is(err, kernels.ErrKernelDied))
	}
	if got := err.Error(); got != "Interrupted: idle for 10s" {
		t.Errorf("Error() = %q", got)
	}
	var none *kernels.Error
	exc := &kernels.Error{Name: "NameError", Message: "name 'x' is not defined"}
	if errors.Is(none, kernels.ErrInterrupted) || errors.Is(exc, kernels.ErrUsage) {
		t.Error("a nil error or a language exception matched a kernel kind")
	}
}
