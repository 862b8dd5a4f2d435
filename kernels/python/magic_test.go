package python_test

import "bytes"
import "strings"
import "testing"

import "github.com/tetherhq/tether/kernels/python"

func TestRewrite(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "x = 1\nx", "x = 1\nx"},
		{"shell", "!ls -l", `__tether__.system("ls -l")`},
		{"indented shell", "for i in r:\n    !echo {i}", "for i in r:\n    __tether__.system(\"echo {i}\")"},
		{"capture", "files = !ls", `files = __tether__.getoutput("ls")`},
		{"capture tuple", "a, b = !echo", `a, b = __tether__.getoutput("echo")`},
		{"line magic", "%pip install ./pkg", `__tether__.magic("pip", "install ./pkg")`},
		{"magic assign", "here = %pwd", `here = __tether__.magic("pwd", "")`},
		{"cd quoted", `%cd "a b"`, `__tether__.magic("cd", "\"a b\"")`},
		{"cell magic", "%%bash\necho $HOME\nls", "__tether__.cell(\"bash\", \"\", \"echo $HOME\\nls\")\n\n"},
		{"cell magic after blank", "\n%%timeit -n 2 x=1\nx+1", "\n__tether__.cell(\"timeit\", \"-n 2 x=1\", \"x+1\")\n"},
		{"in triple string", "s = '''\n!no\n%no\n'''", "s = '''\n!no\n%no\n'''"},
		{"in brackets", "x = [1,\n%2]", "x = [1,\n%2]"},
		{"continuation", "x = 1 + \\\n!2", "x = 1 + \\\n!2"},
		{"comment with quote", "# it's\n!echo", "# it's\n__tether__.system(\"echo\")"},
		{"modulo is not a magic", "y = 10 % 3", "y = 10 % 3"},
		{"not equal", "a != b", "a != b"},
		{"html chars stay", "!echo '<a>&'", `__tether__.system("echo '<a>&'")`},
		{"pinfo", "len?", `__tether__.pinfo("len", 1)`},
		{"!pip is the kernel's pip", "!pip install -q ./pkg", `__tether__.magic("pip", "install -q ./pkg")`},
		{"!pip3", "  !pip3 list", `  __tether__.magic("pip", "list")`},
		{"!python -m pip", "!python3 -m pip install x", `__tether__.magic("pip", "install x")`},
		{"!pip in a pipeline stays shell", "!pip list | grep x", `__tether__.system("pip list | grep x")`},
		{"!pipx is not pip", "!pipx run x", `__tether__.system("pipx run x")`},
		{"pinfo prefix", "??os.path.join", `__tether__.pinfo("os.path.join", 2)`},
		{"ternary-ish is not pinfo", "x = a if b else c", "x = a if b else c"},
		{"alias", "%ls -a", `__tether__.system("ls -a")`},
		{"alias ll", "%ll", `__tether__.system("ls -F -l")`},
		{"time", "%time f()", `__tether__.magic("time", "f()")`},
		{"cell time rewrites its body", "%%time\n!ls\nx", "__tether__.cell(\"time\", \"\", \"__tether__.system(\\\"ls\\\")\\nx\", 1)\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := python.Rewrite(tt.in)
			if err != nil {
				t.Fatalf("Rewrite: %s", err.Message)
			}
			if got != tt.want {
				t.Errorf("Rewrite(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if strings.Count(got, "\n") != strings.Count(tt.in, "\n") {
				t.Errorf("line count changed: errors would point at the wrong line")
			}
		})
	}
}

func TestRewriteErrors(t *testing.T) {
	tests := []struct {
		in   string
		line int
		want string
	}{
		{"%store x", 1, "unknown magic %store"},
		{"x = 1\n\n%%bash\nls", 3, "must be the first line"},
		{"%%javascript\n1", 1, "unknown cell magic %%javascript"},
		{"a = %store", 1, "unknown magic %store"},
		// Idioms that cannot work without a terminal say what to do instead.
		{"%debug", 1, "%debug needs an interactive debugger at a terminal, and a cell has none: read the traceback (%tb shows the last one again), or step through the code with the debug tool"},
		{"x = 1\n%pdb on", 2, "%pdb would stop in an interactive debugger"},
		{"r = %debug", 1, "%debug needs an interactive debugger"},
	}
	for _, tt := range tests {
		_, err := python.Rewrite(tt.in)
		if err == nil {
			t.Errorf("Rewrite(%q): no error", tt.in)
			continue
		}
		refused := strings.Contains(tt.in, "%debug") || strings.Contains(tt.in, "%pdb")
		if err.Line != tt.line || !strings.Contains(err.Message, tt.want) || !strings.HasPrefix(err.Message, "kernels: ") || refused == strings.Contains(err.Message, "supported idioms are") {
			t.Errorf("Rewrite(%q): line %d %q", tt.in, err.Line, err.Message)
		}
	}
}

func FuzzRewrite(f *testing.F) {
	for _, s := range []string{"!ls", "x = !ls\n%cd a", "%%bash\nls", "s = '''\n!x'''", "a = [\n!b]", "\"\\\n!x", "%%timeit\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := python.Rewrite(in)
		if err != nil {
			if err.Line < 1 || err.Line > strings.Count(in, "\n")+1 {
				t.Fatalf("error line %d out of range", err.Line)
			}
			return
		}
		if strings.Count(out, "\n") != strings.Count(in, "\n") {
			t.Fatalf("line count changed: %q -> %q", in, out)
		}
		if !strings.ContainsAny(in, "!%?") && out != in {
			t.Fatalf("a cell without idioms changed: %q -> %q", in, out)
		}
		if !bytes.Equal([]byte(out), []byte(out)) {
			t.Fatal("unreachable")
		}
	})
}
