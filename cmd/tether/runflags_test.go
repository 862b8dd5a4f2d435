package main

import "flag"
import "io"
import "strings"
import "testing"

// TestApprovePolicyOnce: a policy that names a tier or tool twice, in one
// --approve or by giving the flag twice, is refused at start with a clear
// error instead of "last wins" (write=deny,write=allow allowed writes).
func TestApprovePolicyOnce(t *testing.T) {
	cases := []struct {
		args []string
		want string // "" = accepted
	}{
		{[]string{"--approve", "write=allow,exec=deny"}, ""},
		{[]string{}, ""},
		{[]string{"--approve", "write=deny,write=allow"}, `the policy sets write twice ("write=deny" and "write=allow")`},
		{[]string{"--approve", "write=deny", "--approve", "write=allow"}, `given twice ("write=deny", then "write=allow")`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var rf runFlags
			rf.add(fs, "ask")
			err := fs.Parse(c.args)
			if err == nil {
				_, err = rf.config()
			}
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
	var rf runFlags
	rf.add(flag.NewFlagSet("y", flag.ContinueOnError), "ask")
	if p, err := rf.config(); err != nil || p.Policy.String() != "*=ask" {
		t.Fatalf("default policy %v, %v", p.Policy, err)
	}
}
