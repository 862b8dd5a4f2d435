package tools

import "testing"

func TestEscapeControls(t *testing.T) {
	for _, c := range []struct {
		in, want string
		n        int
	}{
		{"plain\ttext\n", "plain\ttext\n", 0},
		{"crlf\r\nkept\r\n", "crlf\r\nkept\r\n", 0},
		{"lone\rcr", `lone\x0dcr`, 1},
		{"end\r", `end\x0d`, 1},
		{"\x1b]52;c;eA==\x07", `\x1b]52;c;eA==\x07`, 2},
		{"\x1b]8;;http://x\x1b\\link", `\x1b]8;;http://x\x1b\link`, 2},
		{"c1 \u009b2J and \u0085 nel", `c1 \u009b2J and \u0085 nel`, 2},
		{"del\x7f nul\x00", `del\x7f nul\x00`, 2},
		{"é ü 日本 \u00a0", "é ü 日本 \u00a0", 0},
		{"bad utf8 \xc2", "bad utf8 \xc2", 0},
	} {
		got, n := escapeControls(c.in)
		if got != c.want || n != c.n {
			t.Errorf("escapeControls(%q) = %q, %d; want %q, %d", c.in, got, n, c.want, c.n)
		}
	}
}

func TestApprovalPromptEscapes(t *testing.T) {
	q := ApprovalRequest{Tool: "write", Tier: TierWrite, Preview: "+\x1b]52;c;eA==\x07\n"}
	for _, s := range []string{q.Prompt(), q.Detail()} {
		if s == "" || containsByte(s, 0x1b) || containsByte(s, 0x07) {
			t.Errorf("prompt holds raw controls: %q", s)
		}
	}
}

func containsByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}
