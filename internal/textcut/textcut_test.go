package textcut_test

import "fmt"
import "strings"
import "testing"
import "unicode/utf8"

import "github.com/tetherhq/tether/internal/textcut"

func TestCuts(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		max      int
		prefix   string
		suffix   string
	}{
		{"fits", "héllo", 10, "héllo", "héllo"},
		{"ascii", "abcdef", 3, "abc", "def"},
		{"inside é", "hé", 2, "h", "é"},
		{"after é", "hé!", 3, "hé", "é!"},
		{"emoji", "a😀b", 4, "a", "b"},
		{"zero", "abc", 0, "", ""},
		{"negative", "abc", -1, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := textcut.Prefix(tc.in, tc.max); got != tc.prefix {
				t.Errorf("Prefix(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.prefix)
			}
			if got := textcut.Suffix(tc.in, tc.max); got != tc.suffix {
				t.Errorf("Suffix(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.suffix)
			}
		})
	}
}

func TestBytesAndChars(t *testing.T) {
	if got, cut := textcut.Bytes("ab", 5); got != "ab" || cut {
		t.Errorf("Bytes fits: %q %v", got, cut)
	}
	got, cut := textcut.Bytes("aé"+strings.Repeat("x", 8), 2)
	if want := "a\n... (1 of 11 bytes shown)"; got != want || !cut {
		t.Errorf("Bytes = %q %v, want %q", got, cut, want)
	}
	got, cut = textcut.Chars("ééééé", 3)
	if want := "ééé… (cut: 3 of 5 chars shown)"; got != want || !cut {
		t.Errorf("Chars = %q %v, want %q", got, cut, want)
	}
	if got, cut := textcut.Chars("éé", 2); got != "éé" || cut {
		t.Errorf("Chars fits by characters though not by bytes: %q %v", got, cut)
	}
}

func TestHeadTail(t *testing.T) {
	h := &textcut.Head{Max: 5}
	fmt.Fprint(h, "abcd")
	fmt.Fprint(h, "é and more") // é's second byte would be the 6th
	if got := h.String(); got != "abcd" || !utf8.ValidString(got) {
		t.Errorf("Head = %q", got)
	}
	if h.Dropped() != 10 || !h.Cut() {
		t.Errorf("Head dropped %d", h.Dropped())
	}
	tl := &textcut.Tail{Max: 4}
	fmt.Fprint(tl, "xyz")
	fmt.Fprint(tl, "éab") // 7 bytes written, the last 4 kept: é and "ab"
	if got := tl.String(); !utf8.ValidString(got) || !strings.HasSuffix(got, "ab") {
		t.Errorf("Tail = %q", got)
	}
	if tl.Dropped() != 3 {
		t.Errorf("Tail dropped %d, want 3", tl.Dropped())
	}
	var z textcut.Head
	fmt.Fprint(&z, "abc")
	if z.String() != "" || z.Dropped() != 3 {
		t.Errorf("zero Head kept %q", z.String())
	}
}

func TestLastLines(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"a\nb", 2, "a\nb"},
		{"a\nb\nc\nd", 2, "(2 earlier lines cut)\nc\nd"},
		{"", 3, ""},
	} {
		if got := textcut.LastLines(tc.in, tc.n); got != tc.want {
			t.Errorf("LastLines(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestTrimPartial(t *testing.T) {
	e := []byte("é") // 0xC3 0xA9
	for _, tt := range []struct {
		in, end, start string
	}{
		{"abc", "abc", "abc"},
		{"ab" + string(e[:1]), "ab", "ab" + string(e[:1])}, // é's first byte left at the end
		{string(e[1:]) + "ab", string(e[1:]) + "ab", "ab"}, // é's second byte left at the start
		{"a€", "a€", "a€"},                                 // whole three-byte sequence
		{"a" + "€"[:2], "a", "a" + "€"[:2]},                // two of its three bytes at the end
		{"€"[1:] + "z", "€"[1:] + "z", "z"},                // its last two at the start
		{"a\xffb", "a\xffb", "a\xffb"},                     // invalid bytes written as such stay
		{"", "", ""},
	} {
		if got := string(textcut.TrimPartialEnd([]byte(tt.in))); got != tt.end {
			t.Errorf("TrimPartialEnd(%q) = %q, want %q", tt.in, got, tt.end)
		}
		if got := string(textcut.TrimPartialStart([]byte(tt.in))); got != tt.start {
			t.Errorf("TrimPartialStart(%q) = %q, want %q", tt.in, got, tt.start)
		}
	}
}
