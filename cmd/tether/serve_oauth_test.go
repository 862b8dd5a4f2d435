//go:build linux

package main

import "context"
import "crypto"
import "crypto/rand"
import "crypto/rsa"
import "crypto/sha256"
import "encoding/base64"
import "encoding/json"
import "errors"
import "net/http"
import "os"
import "os/exec"
import "path/filepath"
import "slices"
import "strings"
import "syscall"
import "testing"
import "time"

import "github.com/modelcontextprotocol/go-sdk/mcp"
import "github.com/tetherhq/tether/internal/testenv"

// rsaJWKS writes a JWK Set of key under kid to name.
func rsaJWKS(t *testing.T, name, kid string, key *rsa.PrivateKey) {
	t.Helper()
	b64 := base64.RawURLEncoding.EncodeToString
	b, _ := json.Marshal(map[string]any{"keys": []map[string]string{{"kty": "RSA", "kid": kid, "n": b64(key.N.Bytes()), "e": "AQAB"}}})
	if err := os.WriteFile(name, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// hostJWT signs an RS256 access token for workspace alpha of the host at
// https://tether.test, with tier ("" none), by RFC 7515's steps (the JWT
// library belongs to the server layer).
func hostJWT(t *testing.T, kid string, key *rsa.PrivateKey, tier string) string {
	t.Helper()
	c := map[string]any{"iss": "https://idp.test", "sub": "u1", "aud": "https://tether.test/mcp/alpha",
		"exp": time.Now().Add(time.Hour).Unix(), "tether_workspaces": []string{"alpha"}}
	if tier != "" {
		c["tether_tier"] = tier
	}
	b64 := base64.RawURLEncoding.EncodeToString
	h, _ := json.Marshal(map[string]string{"alg": "RS256", "typ": "JWT", "kid": kid})
	p, _ := json.Marshal(c)
	signing := b64(h) + "." + b64(p)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return signing + "." + b64(sig)
}

func rsaKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// waitStatus polls initStatus until it answers want; the bound only turns
// a missed reload into a failure instead of a hang.
func waitStatus(t *testing.T, url, token string, want int, what string) {
	t.Helper()
	for end := time.Now().Add(time.Minute); initStatus(t, url, token) != want; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%s: never %d", what, want)
		}
	}
}

// TestHostJWKSReloadOnSIGHUP: tether serve --http --jwks takes a JWT of a
// key added to the file after SIGHUP, refuses the removed key's tokens,
// and keeps its keys when the file is broken.
func TestHostJWKSReloadOnSIGHUP(t *testing.T) {
	base := t.TempDir()
	jwks := filepath.Join(base, "jwks.json")
	k1, k2 := rsaKey(t), rsaKey(t)
	rsaJWKS(t, jwks, "k1", k1)
	hp := startHostProc(t, base, "--jwks", jwks, "--public-url", "https://tether.test", "--jwt-issuer", "https://idp.test")
	t1, t2 := hostJWT(t, "k1", k1, ""), hostJWT(t, "k2", k2, "")
	if got := initStatus(t, hp.url, t1); got != http.StatusOK {
		t.Fatalf("a token of the file's key: %d, want 200", got)
	}
	if got := initStatus(t, hp.url, t2); got != http.StatusUnauthorized {
		t.Fatalf("a token of a key not in the file: %d, want 401", got)
	}
	rsaJWKS(t, jwks, "k2", k2)
	hp.cmd.Process.Signal(syscall.SIGHUP)
	waitStatus(t, hp.url, t2, http.StatusOK, "the new key's token after SIGHUP")
	if got := initStatus(t, hp.url, t1); got != http.StatusUnauthorized {
		t.Errorf("the removed key's token after SIGHUP: %d, want 401", got)
	}
	// A broken file keeps the keys. The same SIGHUP reloads the tokens file
	// first, which shows when the signal was handled.
	os.WriteFile(jwks, []byte(`{"keys": [`), 0o600)
	os.WriteFile(hp.tokens, []byte(`{"t-after-broken-jwks": ["alpha"]}`), 0o600)
	hp.cmd.Process.Signal(syscall.SIGHUP)
	waitStatus(t, hp.url, "t-after-broken-jwks", http.StatusOK, "the tokens file after the second SIGHUP")
	if got := initStatus(t, hp.url, t2); got != http.StatusOK {
		t.Errorf("the kept key's token after a broken file's SIGHUP: %d, want 200", got)
	}
}

// TestHostJWTTierCapsSurface: a JWT without a tier claim (the default,
// read) opens a session that lists no write or exec tool and refuses one
// by name; an exec-tier token of the same host gets eval and write.
func TestHostJWTTierCapsSurface(t *testing.T) {
	base := t.TempDir()
	jwks := filepath.Join(base, "jwks.json")
	k := rsaKey(t)
	rsaJWKS(t, jwks, "k1", k)
	hp := startHostProc(t, base, "--jwks", jwks, "--public-url", "https://tether.test", "--jwt-issuer", "https://idp.test")
	names := func(tier string) []string {
		client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
			Endpoint: hp.url + "/mcp/alpha", HTTPClient: &http.Client{Transport: testenv.Bearer(hostJWT(t, "k1", k, tier))}, MaxRetries: -1,
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		var out []string
		for _, tool := range listTools(t, cs) {
			out = append(out, tool.Name)
		}
		if tier == "" {
			if text, isErr := callText(t, cs, "write", map[string]any{"path": "x.txt", "content": "x"}); !isErr {
				t.Errorf("write on a read-tier token's session: %s", text)
			}
		}
		return out
	}
	read := names("")
	if !slices.Contains(read, "read") || slices.Contains(read, "write") || slices.Contains(read, "eval") {
		t.Errorf("tools of a read-tier token: %v", read)
	}
	if exec := names("exec"); !slices.Contains(exec, "eval") || !slices.Contains(exec, "write") {
		t.Errorf("tools of an exec-tier token: %v", exec)
	}
}

// TestServeOAuthFlagErrors: OAuth flags that cannot work are refused at
// start, saying what to give.
func TestServeOAuthFlagErrors(t *testing.T) {
	base := t.TempDir()
	root, _ := hostRoot(t, base)
	jwks := filepath.Join(base, "jwks.json")
	rsaJWKS(t, jwks, "k1", rsaKey(t))
	host := []string{"serve", "--http", "127.0.0.1:0", "--root", root, "--approve", "exec=deny"}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"without --http", []string{"serve", "--workdir", base, "--jwks", jwks}, "add --http"},
		{"no public URL", append(host, "--jwks", jwks, "--jwt-issuer", "https://idp.test"), "--public-url"},
		{"public URL with a path", append(host, "--jwks", jwks, "--jwt-issuer", "https://idp.test", "--public-url", "https://tether.test/mcp"), "has a path"},
		{"no issuer", append(host, "--jwks", jwks, "--public-url", "https://tether.test"), "--jwt-issuer"},
		{"issuer without keys", append(host, "--tokens", filepath.Join(base, "tokens.json"), "--jwt-issuer", "https://idp.test"), "need --jwks"},
		{"bad default tier", append(host, "--jwks", jwks, "--jwt-issuer", "https://idp.test", "--public-url", "https://tether.test", "--jwt-default-tier", "root"), "--jwt-default-tier"},
		{"missing key set", append(host, "--jwks", filepath.Join(base, "none.json"), "--jwt-issuer", "https://idp.test", "--public-url", "https://tether.test"), "JWKS file"},
		{"neither tokens nor keys", host, "--tokens FILE or --jwks FILE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The binary, not runServe: a host's start changes process-wide
			// settings (the sandbox's strictness, dumpability).
			out, err := exec.Command(tetherBin(t), c.args...).CombinedOutput()
			if code := exitCode(err); code != 2 || !strings.Contains(string(out), c.want) {
				t.Errorf("exit %d, output %q; want 2 and %q", code, out, c.want)
			}
		})
	}
}

// exitCode is the exit status err reports (0 for nil, -1 for no exit).
func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	return -1
}
