package proc

import "os"
import "path/filepath"
import "strconv"

// Git run by any process tether starts (go's VCS stamping, cargo's git
// dependencies, a worker's agent, tether's own git for isolated workers)
// reads neither the system's nor the operator's configuration (a credential
// helper, a signing key, url rewrites with tokens): GIT_CONFIG_NOSYSTEM=1
// and GIT_CONFIG_GLOBAL point at a configuration tether writes in the
// process's own home. And the settings that make git run a program are
// fixed at the command line's precedence (GIT_CONFIG_COUNT), so a
// repository's .git/config cannot set them: a workspace's config is the
// tenant's to write.

// gitSafeConfig are the settings every process's git gets above the
// repository's own. Filters and diff drivers are per name; tether's own git
// (workers) disables those a repository defines.
var gitSafeConfig = [][2]string{
	{"core.fsmonitor", "false"},
	{"core.hooksPath", os.DevNull},
	{"core.pager", "cat"},
	{"core.editor", ":"},
	{"sequence.editor", ":"},
	{"core.sshCommand", "ssh"},
	{"core.askPass", ""},
	{"core.gitProxy", "none"},
	{"credential.helper", ""},
	{"gpg.program", "gpg"},
	{"gpg.ssh.program", "ssh-keygen"},
	{"gpg.x509.program", "gpgsm"},
	{"commit.gpgSign", "false"},
	{"tag.gpgSign", "false"},
	{"log.showSignature", "false"},
	{"diff.external", ""},
	{"protocol.ext.allow", "never"},
	{"uploadpack.packObjectsHook", ""},
}

// globalGitConfig is the configuration tether writes as each process's
// global one: ownership checks off (the sandbox decides what a process
// reads; the workspace may belong to another user than tether's), and the
// program-running settings as in gitSafeConfig.
const globalGitConfig = `# Written by tether: the git configuration of a process it started.
[safe]
	directory = *
[core]
	fsmonitor = false
	hooksPath = /dev/null
	pager = cat
[credential]
	helper =
[protocol "ext"]
	allow = never
`

// gitEnv is the environment entries for git of a process whose home is
// home ("" without one tether made).
func gitEnv(home string) []string {
	global := os.DevNull
	if home != "" {
		global = filepath.Join(home, ".gitconfig")
	}
	env := []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + global, "GIT_TERMINAL_PROMPT=0",
		"GIT_CONFIG_COUNT=" + strconv.Itoa(len(gitSafeConfig))}
	for i, kv := range gitSafeConfig {
		n := strconv.Itoa(i)
		env = append(env, "GIT_CONFIG_KEY_"+n+"="+kv[0], "GIT_CONFIG_VALUE_"+n+"="+kv[1])
	}
	return env
}

// writeGitConfig writes the global git configuration into home (made when
// missing), for a process about to start there.
func writeGitConfig(home string) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(globalGitConfig), 0o600)
}
