package server_test

import "context"
import "crypto/ecdsa"
import "crypto/elliptic"
import "crypto/rand"
import "crypto/rsa"
import "encoding/base64"
import "encoding/json"
import "errors"
import "fmt"
import "io"
import "math/big"
import "net/http"
import "os"
import "path/filepath"
import "strings"
import "testing"
import "time"

import "github.com/golang-jwt/jwt/v5"
import "github.com/modelcontextprotocol/go-sdk/mcp"
import "github.com/modelcontextprotocol/go-sdk/oauthex"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/server"
import "github.com/tetherhq/tether/tools"

const (
	testIssuer   = "https://idp.example.com"
	testResource = "https://tether.example.com"
)

// signers are an RSA and a P-256 key with their kids.
type signers struct {
	rsa *rsa.PrivateKey
	ec  *ecdsa.PrivateKey
}

func newSigners(t *testing.T) signers {
	t.Helper()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return signers{rk, ek}
}

// jwksJSON is the JWK Set of s's public keys, as kids "r1" and "e1", plus
// keys a provider's set may hold that the host must leave out.
func (s signers) jwksJSON() string {
	b64 := base64.RawURLEncoding.EncodeToString
	ecb, _ := s.ec.PublicKey.Bytes() // 0x04 || x || y
	keys := []map[string]string{
		{"kty": "RSA", "kid": "r1", "use": "sig", "alg": "RS256", "n": b64(s.rsa.N.Bytes()), "e": b64(big.NewInt(int64(s.rsa.E)).Bytes())},
		{"kty": "EC", "kid": "e1", "crv": "P-256", "x": b64(ecb[1:33]), "y": b64(ecb[33:])},
		{"kty": "RSA", "kid": "enc1", "use": "enc", "n": b64(s.rsa.N.Bytes()), "e": "AQAB"},
		{"kty": "OKP", "kid": "ed1", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
	}
	b, _ := json.Marshal(map[string]any{"keys": keys})
	return string(b)
}

// token signs claims with kid's key (RS256 for r*, ES256 for e*).
func (s signers) token(t *testing.T, kid string, claims jwt.MapClaims) string {
	t.Helper()
	var tok *jwt.Token
	var key any
	if strings.HasPrefix(kid, "e") {
		tok, key = jwt.NewWithClaims(jwt.SigningMethodES256, claims), s.ec
	} else {
		tok, key = jwt.NewWithClaims(jwt.SigningMethodRS256, claims), s.rsa
	}
	tok.Header["kid"] = kid
	str, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return str
}

// claims are a valid token's for workspace alpha; edit mutates them.
func claims(edit func(jwt.MapClaims)) jwt.MapClaims {
	now := time.Now()
	c := jwt.MapClaims{
		"iss": testIssuer, "sub": "user-1", "aud": testResource + "/mcp/alpha",
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "nbf": now.Add(-time.Minute).Unix(),
		"tether_workspaces": []string{"alpha"},
	}
	if edit != nil {
		edit(c)
	}
	return c
}

func newOAuth(t *testing.T, s signers) *server.OAuth {
	t.Helper()
	keys, err := server.ParseJWKS([]byte(s.jwksJSON()))
	if err != nil {
		t.Fatal(err)
	}
	if len(keys.Skipped) != 2 {
		t.Errorf("keys left out: %q, want the enc and the Ed25519 key", keys.Skipped)
	}
	o, err := server.NewOAuth(server.OAuthOptions{ResourceURL: testResource, Issuer: testIssuer}, keys)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// authResponse posts an initialize to path with token and returns the
// status and WWW-Authenticate.
func (th *testHost) authResponse(t *testing.T, path, token string) (int, string) {
	t.Helper()
	resp, _ := th.initialize(t, path, token)
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

// TestHostJWT: bearer JWTs are taken besides the tokens file and answered
// as the MCP authorization spec says: 200 for a valid token (RS256 or
// ES256), 401 with error="invalid_token" for one expired, not yet valid,
// for another audience or issuer, or signed by a key the set lacks, 401
// with the metadata's URL alone for none, 403 with insufficient_scope for
// a workspace the token's claim does not name.
func TestHostJWT(t *testing.T) {
	s := newSigners(t)
	th := newTestHost(t, server.HostOptions{OAuth: newOAuth(t, s)})
	other := newSigners(t)
	hour := time.Hour
	metaAlpha := `resource_metadata="` + testResource + `/.well-known/oauth-protected-resource/mcp/alpha"`
	for _, c := range []struct {
		name, path, token string
		want              int
		challenge         []string // parts the WWW-Authenticate must hold
	}{
		{"valid RS256", "/mcp/alpha", s.token(t, "r1", claims(nil)), 200, nil},
		{"valid ES256", "/mcp/alpha", s.token(t, "e1", claims(nil)), 200, nil},
		{"glob claim", "/mcp/beta", s.token(t, "r1", claims(func(c jwt.MapClaims) {
			c["aud"], c["tether_workspaces"] = testResource, "gamma b*"
		})), 200, nil},
		{"host audience", "/mcp/alpha", s.token(t, "r1", claims(func(c jwt.MapClaims) { c["aud"] = []string{"other", testResource} })), 200, nil},
		{"tokens file still", "/mcp/alpha", tokAlpha, 200, nil},
		{"no token", "/mcp/alpha", "", 401, []string{metaAlpha}},
		{"expired", "/mcp/alpha", s.token(t, "r1", claims(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-hour).Unix() })), 401, []string{metaAlpha, `error="invalid_token"`, "expired"}},
		{"not yet valid", "/mcp/alpha", s.token(t, "r1", claims(func(c jwt.MapClaims) { c["nbf"] = time.Now().Add(hour).Unix() })), 401, []string{`error="invalid_token"`, "not valid yet"}},
		{"no exp", "/mcp/alpha", s.token(t, "r1", claims(func(c jwt.MapClaims) { delete(c, "exp") })), 401, []string{`error="invalid_token"`, "exp"}},
		{"wrong audience", "/mcp/alpha", s.token(t, "r1", claims(func(c jwt.MapClaims) { c["aud"] = "https://other.example.com" })), 401, []string{`error="invalid_token"`, "audience"}},
		{"another workspace's audience", "/mcp/alpha", s.token(t, "r1", claims(func(c jwt.MapClaims) { c["aud"] = testResource + "/mcp/beta" })), 401, []string{`error="invalid_token"`, "audience"}},
		{"wrong issuer", "/mcp/alpha", s.token(t, "r1", claims(func(c jwt.MapClaims) { c["iss"] = "https://evil.example.com" })), 401, []string{`error="invalid_token"`, "issuer"}},
		{"unknown key", "/mcp/alpha", other.token(t, "r9", claims(nil)), 401, []string{`error="invalid_token"`, `kid \"r9\"`}},
		{"known kid, other key", "/mcp/alpha", other.token(t, "r1", claims(nil)), 401, []string{`error="invalid_token"`, "signature"}},
		{"alg of another key", "/mcp/alpha", rs256WithKid(t, s, "e1"), 401, []string{`error="invalid_token"`, "ES256"}},
		{"no sub", "/mcp/alpha", s.token(t, "r1", claims(func(c jwt.MapClaims) { delete(c, "sub") })), 401, []string{`error="invalid_token"`, "sub"}},
		{"bad tier", "/mcp/alpha", s.token(t, "r1", claims(func(c jwt.MapClaims) { c["tether_tier"] = "root" })), 401, []string{`error="invalid_token"`, "tether_tier"}},
		{"not a JWT", "/mcp/alpha", "not-a-token", 401, []string{`error="invalid_token"`}},
		{"workspace not in claim", "/mcp/beta", s.token(t, "r1", claims(func(c jwt.MapClaims) { c["aud"] = testResource })), 403, []string{`error="insufficient_scope"`, `resource_metadata="` + testResource + `/.well-known/oauth-protected-resource/mcp/beta"`}},
		{"no workspaces claim", "/mcp/alpha", s.token(t, "r1", claims(func(c jwt.MapClaims) { delete(c, "tether_workspaces") })), 403, []string{`error="insufficient_scope"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, wa := th.authResponse(t, c.path, c.token)
			if got != c.want {
				t.Errorf("status %d, want %d (WWW-Authenticate: %s)", got, c.want, wa)
			}
			for _, part := range c.challenge {
				if !strings.Contains(wa, part) {
					t.Errorf("WWW-Authenticate %q lacks %s", wa, part)
				}
			}
			if c.want != 200 {
				if _, err := oauthex.ParseWWWAuthenticate([]string{wa}); err != nil {
					t.Errorf("the go-sdk cannot parse WWW-Authenticate %q: %v", wa, err)
				}
			}
		})
	}
}

// rs256WithKid is a token signed RS256 whose header names kid (an ES256
// key): the host must refuse it rather than try the key with another
// algorithm.
func rs256WithKid(t *testing.T, s signers, kid string) string {
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims(nil))
	tok.Header["kid"] = kid
	str, err := tok.SignedString(s.rsa)
	if err != nil {
		t.Fatal(err)
	}
	return str
}

// TestHostJWTSession: a go-sdk client opens a session with a JWT and calls a
// tool; a refreshed token of the same subject reaches the session, another
// subject's does not, and one with a lower tier claim is refused 403.
func TestHostJWTSession(t *testing.T) {
	s := newSigners(t)
	th := newTestHost(t, server.HostOptions{OAuth: newOAuth(t, s)})
	tok := s.token(t, "e1", claims(func(c jwt.MapClaims) { c["tether_tier"] = "exec" }))
	cs := th.mustOpen(t, "alpha", tok, nil)
	if text, isErr := callText(t, cs, "read", map[string]any{"path": "own.txt"}); isErr || !strings.Contains(text, "this is alpha") {
		t.Fatalf("read with a JWT: error %v\n%s", isErr, text)
	}
	post := func(token string) int {
		req, _ := http.NewRequest("POST", th.url+"/mcp/alpha", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		req.Header.Set("Mcp-Session-Id", cs.ID())
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	refreshed := s.token(t, "r1", claims(func(c jwt.MapClaims) { c["tether_tier"] = "exec"; c["jti"] = "2" }))
	if got := post(refreshed); got != http.StatusOK {
		t.Errorf("the same subject's refreshed token on its session: %d, want 200", got)
	}
	if got := post(s.token(t, "r1", claims(func(c jwt.MapClaims) { c["sub"] = "user-2"; c["tether_tier"] = "exec" }))); got != http.StatusNotFound {
		t.Errorf("another subject's token on the session: %d, want 404", got)
	}
	if got := post(s.token(t, "r1", claims(nil))); got != http.StatusForbidden {
		t.Errorf("a read-tier token on an exec-tier session: %d, want 403", got)
	}
}

// TestHostJWKSReload: SetJWKS swaps the keys: a token of a key added is
// taken, one of a key removed is refused.
func TestHostJWKSReload(t *testing.T) {
	s, next := newSigners(t), newSigners(t)
	o := newOAuth(t, s)
	th := newTestHost(t, server.HostOptions{OAuth: o})
	oldTok, newTok := s.token(t, "r1", claims(nil)), next.token(t, "r1", claims(nil))
	if got, _ := th.authResponse(t, "/mcp/alpha", newTok); got != 401 {
		t.Fatalf("a key not yet in the set: %d", got)
	}
	keys, err := server.ParseJWKS([]byte(next.jwksJSON()))
	if err != nil {
		t.Fatal(err)
	}
	o.SetJWKS(keys)
	if got, _ := th.authResponse(t, "/mcp/alpha", newTok); got != 200 {
		t.Errorf("the new key after the reload: %d, want 200", got)
	}
	if got, _ := th.authResponse(t, "/mcp/alpha", oldTok); got != 401 {
		t.Errorf("the removed key after the reload: %d, want 401", got)
	}
}

// TestHostResourceMetadata: the RFC 9728 documents are served at the root
// (the host's resource) and at each workspace's path, and the go-sdk's own
// client-side check (the resource matches the URL it was fetched for)
// takes them.
func TestHostResourceMetadata(t *testing.T) {
	th := newTestHost(t, server.HostOptions{OAuth: newOAuth(t, newSigners(t))})
	for _, c := range []struct{ path, resource string }{
		{"/.well-known/oauth-protected-resource", testResource},
		{"/.well-known/oauth-protected-resource/mcp/alpha", testResource + "/mcp/alpha"},
	} {
		prm, err := oauthex.GetProtectedResourceMetadata(context.Background(), th.url+c.path, c.resource, http.DefaultClient)
		if err != nil {
			t.Errorf("%s: %v", c.path, err)
			continue
		}
		if len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != testIssuer || fmt.Sprint(prm.BearerMethodsSupported) != "[header]" {
			t.Errorf("%s: %+v", c.path, prm)
		}
	}
	for _, p := range []string{"/.well-known/oauth-protected-resource/other", "/.well-known/oauth-protected-resource/mcp/a/b"} {
		resp, _ := testenv.Get(t, th.url+p)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, resp.StatusCode)
		}
	}
	// Without OAuth there is no metadata.
	plain := newTestHost(t, server.HostOptions{})
	resp, _ := testenv.Get(t, plain.url+"/.well-known/oauth-protected-resource")
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("metadata of a host without --jwks: %d, want 404", resp.StatusCode)
	}
}

// TestParseJWKSRefuses: a set no token could be verified with, a key
// without a kid and two keys of one kid are refused, saying why.
func TestParseJWKSRefuses(t *testing.T) {
	s := newSigners(t)
	var set struct{ Keys []map[string]any }
	json.Unmarshal([]byte(s.jwksJSON()), &set)
	rsaKey := set.Keys[0]
	noKid := map[string]any{}
	for k, v := range rsaKey {
		noKid[k] = v
	}
	delete(noKid, "kid")
	for _, c := range []struct {
		name string
		keys []map[string]any
		want string
	}{
		{"empty", nil, "no RS256 or ES256 signing key"},
		{"only unusable", set.Keys[2:], "no RS256 or ES256 signing key"},
		{"no kid", []map[string]any{noKid}, "has no \"kid\""},
		{"same kid", []map[string]any{rsaKey, rsaKey}, "two keys have kid"},
		{"small RSA", []map[string]any{{"kty": "RSA", "kid": "x", "n": "AQAB", "e": "AQAB"}}, "at least 2048"},
	} {
		b, _ := json.Marshal(map[string]any{"keys": c.keys})
		_, err := server.ParseJWKS(b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
	if _, err := server.ParseJWKS([]byte("[]")); err == nil || !strings.Contains(err.Error(), "want a JWK Set") {
		t.Errorf("not a set: %v", err)
	}
}

// TestConversationJWT: a 2026-07-28 client with a JWT keeps its
// conversation; the same subject's token with a lower tier claim is refused
// 403 on it, and another subject's token with the key reaches a new
// conversation, not this one.
func TestConversationJWT(t *testing.T) {
	s := newSigners(t)
	th := newTestHost(t, server.HostOptions{OAuth: newOAuth(t, s)})
	const key = "0d5e4b7a-2c1f-4e8d-9b3a-6f7e8d9c0b1a"
	execTok := s.token(t, "r1", claims(func(c jwt.MapClaims) { c["tether_tier"] = "exec" }))
	a := th.openModern(t, "alpha", execTok, key, nil)
	first, err := a.ListTools(context.Background(), nil)
	if err != nil || first.Meta[server.ConversationNewMetaKey] != true {
		t.Fatalf("first tools/list: %v, _meta %v", err, first)
	}
	again, err := a.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "own.txt"}})
	if err != nil || again.IsError || again.Meta[server.ConversationNewMetaKey] == true {
		t.Fatalf("a call after the first: %v, %v", err, again)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"path":"own.txt"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req := testenv.PostMCP(th.url+"/mcp/alpha", s.token(t, "r1", claims(nil)), body, "MCP-Protocol-Version", "2026-07-28",
		"Mcp-Method", "tools/call", "Mcp-Name", "read", server.ConversationHeader, key)
	resp, _ := testenv.Do(t, req)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "insufficient_scope") {
		t.Errorf("a read-tier token on an exec-tier conversation: %d %q, want 403 insufficient_scope", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	other := th.openModern(t, "alpha", s.token(t, "r1", claims(func(c jwt.MapClaims) { c["sub"] = "user-2" })), key, nil)
	res, err := other.ListTools(context.Background(), nil)
	if err != nil || res.Meta[server.ConversationNewMetaKey] != true {
		t.Errorf("another subject with the key: %v, _meta %v; want a new conversation", err, res)
	}
}

// TestOptionErrorsNameFields: NewOAuth and NewHost refuse an option with a
// *server.OptionError naming the field, not a command line's flag (the
// command maps the field to its flag).
func TestOptionErrorsNameFields(t *testing.T) {
	keys, err := server.ParseJWKS([]byte(newSigners(t).jwksJSON()))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, option string
		err          func() error
	}{
		{"no URL", "ResourceURL", func() error { _, err := server.NewOAuth(server.OAuthOptions{Issuer: testIssuer}, keys); return err }},
		{"URL with a path", "ResourceURL", func() error {
			_, err := server.NewOAuth(server.OAuthOptions{ResourceURL: testResource + "/mcp", Issuer: testIssuer}, keys)
			return err
		}},
		{"no issuer", "Issuer", func() error {
			_, err := server.NewOAuth(server.OAuthOptions{ResourceURL: testResource}, keys)
			return err
		}},
		{"root a file", "Root", func() error {
			start := func(context.Context, string, string, *server.Server) (*tools.Run, func() error, error) {
				return nil, nil, nil
			}
			_, err := server.NewHost(server.HostOptions{Root: file, StartRun: start})
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.err()
			var oe *server.OptionError
			if !errors.As(err, &oe) || oe.Option != c.option || strings.Contains(err.Error(), "--") {
				t.Errorf("err = %v (%T), want an OptionError for %s naming no flag", err, err, c.option)
			}
		})
	}
}
