package operator_test

import "testing"

import "github.com/tetherhq/tether/operator"

// FuzzParseReply: whatever is typed, a reply is either refused with an
// explanation or is a possible answer to the card; nothing is invented.
func FuzzParseReply(f *testing.F) {
	for _, s := range []string{"1", "2,3", "1 3: note", "/skip", "free text", ":", "0", "-1", "1,,2", "99999999999999999999", "1:"} {
		f.Add(s, true, true)
		f.Add(s, false, false)
	}
	f.Fuzz(func(t *testing.T, line string, multi, free bool) {
		q := operator.Question{Question: "pick?", Options: []operator.Option{{Label: "a"}, {Label: "b"}, {Label: "c"}}, MultiSelect: multi, AllowFreeText: free}
		a, err := operator.ParseReply(q, line)
		if err != nil {
			return
		}
		if cerr := operator.CheckAnswer(q, a); cerr != nil && len(a.Text) <= operator.MaxTextBytes {
			t.Fatalf("ParseReply(%q) = %+v, which CheckAnswer refuses: %v", line, a, cerr)
		}
	})
}
