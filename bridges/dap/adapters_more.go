package dap

// moreAdapters are the rows of DefaultAdapters after the first five: Ruby,
// Perl and gdb, kept apart so the table's literal stays readable.
func moreAdapters() []Adapter {
	return []Adapter{
		{
			// rdbg (the debug gem, bundled with Ruby 3.1 and later) serves
			// DAP from inside the Ruby process it runs, on a unix socket:
			// the adapter is the program. ruby finds rdbg in whichever
			// debug gem is installed; WARN-level messages ("wait for
			// debugger connection") would be the program's stderr.
			ID:         "rdbg",
			Toolchain:  "ruby",
			Markers:    []string{"Gemfile", "*.gemspec", "Rakefile", ".ruby-version", "*.rb"},
			Extensions: []string{".rb"},
			Commands: [][]string{{"ruby", "-e", `ENV["RUBY_DEBUG_LOG_LEVEL"] = "ERROR"; load Gem.bin_path("debug", "rdbg")`,
				"--", "--open", "--sock-path=${socket}", "--", "${program}", "${args}"}},
			Probe:        []string{"-e", `Gem.bin_path("debug", "rdbg")`},
			ProbeFailure: "has no debug gem (rdbg)",
			Transport:    Unix,
			Debuggee:     true,
			Launch:       map[string]any{"program": "${program}", "cwd": "${cwd}"},
			// A program started with `rdbg --open --port PORT prog.rb`
			// serves DAP there itself.
			Attach:       map[string]any{},
			AttachDirect: true,
			Install:      "apt-get install ruby (Ruby 3.1 and later bundle the debug gem and its rdbg), or gem install debug",
			// stepBack walks what its recorder holds (`record on`);
			// reverseContinue comes with stepBack in DAP's capabilities,
			// and debug 1.4 refuses it ("cancelled").
			Ops: []string{"step_back", "reverse_continue", "completions"},
		},
		{
			// Perl::LanguageServer is also a debug adapter, reached over TCP
			// as vscode-perl reaches it: the program it starts under
			// perl -d connects back to the same port.
			ID:         "perl",
			Toolchain:  "native",
			Markers:    []string{"cpanfile", "Makefile.PL", "Build.PL", "dist.ini", "*.pl", "*.pm"},
			Extensions: []string{".pl", ".pm"},
			Commands: [][]string{
				{"perl", "-MPerl::LanguageServer", "-e", "Perl::LanguageServer::run", "--", "--port", "${port}", "--nostdio"},
				{"/usr/bin/perl", "-MPerl::LanguageServer", "-e", "Perl::LanguageServer::run", "--", "--port", "${port}", "--nostdio"},
			},
			Probe:        []string{"-MPerl::LanguageServer", "-e", "1"},
			ProbeFailure: "cannot load Perl::LanguageServer",
			Transport:    TCP,
			Launch:       map[string]any{"program": "${program}", "args": "${args}", "cwd": "${cwd}", "stopOnEntry": false},
			Install:      "apt-get install libperl-languageserver-perl, or cpanm Perl::LanguageServer",
			Ops:          []string{"set_variable", "set_expression", "modules", "loaded_sources"},
		},
		{
			// gdb serves DAP from version 14 (gdb -i=dap); the probe
			// refuses an older gdb, which lacks its gdb.dap module.
			ID:           "gdb",
			Toolchain:    "native",
			Markers:      []string{"Cargo.toml", "CMakeLists.txt", "*.c"},
			Extensions:   []string{".c", ".cc", ".cpp", ".rs"},
			Executables:  true,
			Commands:     [][]string{{"gdb", "-i=dap", "-nx"}},
			Probe:        []string{"-nx", "-batch", "-ex", "python import gdb.dap"},
			ProbeFailure: "is older than gdb 14, the first to serve DAP (it has no gdb.dap module)",
			Launch:       map[string]any{"program": "${program}", "args": "${args}", "cwd": "${cwd}"},
			AttachPID:    map[string]any{"pid": "${pid}"},
			Install:      "install gdb 14 or later (Debian 13: apt-get install gdb); lldb is tried first for native executables, so pass adapter gdb",
			Untested:     "Debian 12, where tether's tests run, has gdb 13, which does not serve DAP",
		},
	}
}
