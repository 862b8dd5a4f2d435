package server

import "context"
import "crypto/sha256"
import "errors"
import "fmt"
import "net/http"
import "net/url"
import "path"
import "strconv"
import "strings"
import "sync/atomic"
import "time"

import "github.com/golang-jwt/jwt/v5"
import "github.com/modelcontextprotocol/go-sdk/auth"
import "github.com/modelcontextprotocol/go-sdk/oauthex"

import "github.com/tetherhq/tether/tools"

// Defaults of OAuthOptions.
const (
	// DefaultWorkspacesClaim is the claim naming the workspaces a JWT opens.
	DefaultWorkspacesClaim = "tether_workspaces"
	// DefaultTierClaim is the claim naming the highest tier a JWT's runs get.
	DefaultTierClaim = "tether_tier"
	// DefaultJWTLeeway is how far exp, nbf and iat may be off by the clocks.
	DefaultJWTLeeway = 30 * time.Second
)

// resourceMetadataPath is where a host serves its RFC 9728 protected
// resource metadata; /mcp/NAME's own document is at this path plus
// /mcp/NAME, as the MCP authorization spec's discovery looks for it.
const resourceMetadataPath = "/.well-known/oauth-protected-resource"

// OAuthOptions configure a host as an OAuth 2.0 resource server that takes
// bearer JWTs (RFC 9068 access tokens) besides its tokens file.
type OAuthOptions struct {
	// ResourceURL is the host's public URL as clients reach it (through the
	// proxy), such as https://tether.example.com: the protected resource
	// of the metadata at /.well-known/oauth-protected-resource, and each
	// workspace's resource is ResourceURL/mcp/NAME. Required.
	ResourceURL string
	// Issuer is the only "iss" taken. Required.
	Issuer string
	// Audiences are the "aud" values taken besides the workspace's resource
	// (ResourceURL/mcp/NAME, what an MCP client asks a token for); empty:
	// ResourceURL.
	Audiences []string
	// AuthorizationServers are listed in the metadata (empty: Issuer).
	AuthorizationServers []string
	// WorkspacesClaim names the claim holding the workspaces the token may
	// open: a list of names or path.Match globs, or one string of them
	// separated by spaces (DefaultWorkspacesClaim when empty).
	WorkspacesClaim string
	// TierClaim names the claim holding the highest tier ("read", "write"
	// or "exec") the runs of the token's sessions get (DefaultTierClaim
	// when empty); without the claim a token gets DefaultTier.
	TierClaim string
	// DefaultTier is the tier of a token without a tier claim (0: read).
	DefaultTier tools.Tier
	// Leeway is how far exp, nbf and iat may be off (0: DefaultJWTLeeway).
	Leeway time.Duration
	// Now is the clock tokens are checked against (nil: time.Now).
	Now func() time.Time
}

// OAuth verifies bearer JWTs against a JWK Set for a Host
// (HostOptions.OAuth) and serves its protected resource metadata. Its key
// set is replaced by SetJWKS (as on SIGHUP).
type OAuth struct {
	opts OAuthOptions
	base *url.URL
	jwks atomic.Pointer[JWKS]
}

// NewOAuth checks opts and returns an OAuth verifying with keys.
func NewOAuth(opts OAuthOptions, keys *JWKS) (*OAuth, error) {
	if keys == nil {
		return nil, errors.New("server: OAuth needs a JWK Set (keys is nil)")
	}
	u, err := url.Parse(opts.ResourceURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, &OptionError{Option: "ResourceURL", Why: fmt.Sprintf("%q is not an absolute http(s) URL without query or fragment; give the URL clients reach the host at, such as https://tether.example.com", opts.ResourceURL)}
	}
	u.Path = strings.TrimRight(u.Path, "/")
	if u.Path != "" {
		return nil, &OptionError{Option: "ResourceURL", Why: fmt.Sprintf("%q has a path; the host serves /mcp/NAME and the metadata at the root, so give its origin, such as https://tether.example.com", opts.ResourceURL)}
	}
	opts.ResourceURL = u.String()
	if opts.Issuer == "" {
		return nil, &OptionError{Option: "Issuer", Why: "is empty; give the iss your identity provider writes in its access tokens"}
	}
	if len(opts.Audiences) == 0 {
		opts.Audiences = []string{opts.ResourceURL}
	}
	if len(opts.AuthorizationServers) == 0 {
		opts.AuthorizationServers = []string{opts.Issuer}
	}
	if opts.WorkspacesClaim == "" {
		opts.WorkspacesClaim = DefaultWorkspacesClaim
	}
	if opts.TierClaim == "" {
		opts.TierClaim = DefaultTierClaim
	}
	if opts.DefaultTier == 0 {
		opts.DefaultTier = tools.TierRead
	}
	if opts.DefaultTier < tools.TierRead || opts.DefaultTier > tools.TierExec {
		return nil, fmt.Errorf("server: default tier %s is not read, write or exec", opts.DefaultTier)
	}
	if opts.Leeway <= 0 {
		opts.Leeway = DefaultJWTLeeway
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	o := &OAuth{opts: opts, base: u}
	o.jwks.Store(keys)
	return o, nil
}

// SetJWKS replaces the key set (a reload of the JWKS file); sessions
// already open stay open.
func (o *OAuth) SetJWKS(keys *JWKS) { o.jwks.Store(keys) }

// principal is who a request authenticated as.
type principal struct {
	// key identifies the principal without being its secret (a tokens file
	// entry's token hash, or a JWT's issuer and subject): a session is
	// reachable only by the principal that opened it.
	key   string
	globs []string   // the workspaces it may open
	tier  tools.Tier // the highest tier its runs get
	jwt   bool
}

// authError is a JWT refused: 401 with error="invalid_token" (RFC 6750
// 3.1), its description safe to show the client.
type authError struct{ desc string }

func (e *authError) Error() string { return e.desc }

// verify checks token as a JWT for workspace ws (whose resource URL is one
// audience it may name).
func (o *OAuth) verify(token, ws string) (principal, error) {
	keys := o.jwks.Load()
	aud := append([]string{o.workspaceURL(ws)}, o.opts.Audiences...)
	p := jwt.NewParser(
		jwt.WithValidMethods([]string{"RS256", "ES256"}),
		jwt.WithIssuer(o.opts.Issuer),
		jwt.WithAudience(aud...),
		jwt.WithExpirationRequired(),
		jwt.WithLeeway(o.opts.Leeway),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(o.opts.Now),
	)
	claims := jwt.MapClaims{}
	_, err := p.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		k, ok := keys.keys[kid]
		switch {
		case kid == "":
			return nil, &authError{desc: "the token's header has no kid"}
		case !ok:
			return nil, &authError{desc: fmt.Sprintf("no key with kid %q in the host's key set", kid)}
		case k.alg != t.Method.Alg():
			return nil, &authError{desc: fmt.Sprintf("key %q is for %s, the token is signed with %s", kid, k.alg, t.Method.Alg())}
		}
		return k.pub, nil
	})
	if err != nil {
		return principal{}, &authError{desc: "bearer token refused: " + jwtReason(err)}
	}
	sub, _ := claims["sub"].(string)
	if sub == "" {
		return principal{}, &authError{desc: "bearer token refused: it has no sub claim naming its principal"}
	}
	globs, err := claimGlobs(claims[o.opts.WorkspacesClaim])
	if err != nil {
		return principal{}, &authError{desc: fmt.Sprintf("bearer token refused: claim %s %v", o.opts.WorkspacesClaim, err)}
	}
	tier := o.opts.DefaultTier
	if v, ok := claims[o.opts.TierClaim]; ok {
		s, _ := v.(string)
		if err := tier.UnmarshalText([]byte(s)); err != nil {
			return principal{}, &authError{desc: fmt.Sprintf("bearer token refused: claim %s is %v; want read, write or exec", o.opts.TierClaim, v)}
		}
	}
	iss, _ := claims["iss"].(string)
	sum := sha256.Sum256([]byte(iss + "\x00" + sub))
	return principal{key: fmt.Sprintf("j%x", sum[:8]), globs: globs, tier: tier, jwt: true}, nil
}

// jwtReason says why the go-jwt parser refused a token, in words a client
// can act on, never echoing the token.
func jwtReason(err error) string {
	var key *authError
	switch {
	case errors.As(err, &key):
		return "cannot be verified: " + key.desc
	case errors.Is(err, jwt.ErrTokenMalformed):
		return "not a well-formed JWT"
	case errors.Is(err, jwt.ErrTokenExpired):
		return "expired; get a new access token"
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return "not valid yet (nbf or iat in the future)"
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return "a required claim is missing (exp)"
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return "its audience is not this resource; ask the authorization server for a token for this MCP server's URL"
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return "its issuer is not the one this host trusts"
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return "its signature does not verify"
	}
	return err.Error()
}

// claimGlobs reads a workspaces claim: a list of names or globs, or one
// string of them separated by spaces; a missing claim is no workspace.
func claimGlobs(v any) ([]string, error) {
	var globs []string
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		globs = strings.Fields(v)
	case []any:
		for _, g := range v {
			s, ok := g.(string)
			if !ok {
				return nil, errors.New("is not a list of strings")
			}
			globs = append(globs, s)
		}
	default:
		return nil, errors.New("is not a list of workspace names or globs")
	}
	for _, g := range globs {
		if _, err := path.Match(g, ""); err != nil || g == "" || strings.ContainsAny(g, `/\`) {
			return nil, fmt.Errorf("holds %q, not a name or glob of one workspace", g)
		}
	}
	return globs, nil
}

// workspaceURL is the resource URL of workspace ws (the MCP endpoint a
// client connects to); "" names the host's own.
func (o *OAuth) workspaceURL(ws string) string {
	if ws == "" {
		return o.opts.ResourceURL
	}
	return o.opts.ResourceURL + "/mcp/" + url.PathEscape(ws)
}

// metadataURL is where the metadata of workspace ws's resource is served.
func (o *OAuth) metadataURL(ws string) string {
	if ws == "" {
		return o.opts.ResourceURL + resourceMetadataPath
	}
	return o.opts.ResourceURL + resourceMetadataPath + "/mcp/" + url.PathEscape(ws)
}

// challenge is the WWW-Authenticate value of a 401 or 403 for workspace
// ws: the metadata's URL (MCP authorization, "Protected Resource Metadata
// Discovery"), and with errCode its RFC 6750 error and description.
func (o *OAuth) challenge(ws, errCode, desc string) string {
	s := `Bearer realm="tether", resource_metadata=` + strconv.Quote(o.metadataURL(ws))
	if errCode != "" {
		s += `, error=` + strconv.Quote(errCode) + `, error_description=` + strconv.Quote(desc)
	}
	return s
}

// serveMetadata answers /.well-known/oauth-protected-resource (the host's
// resource) and /.well-known/oauth-protected-resource/mcp/NAME (a
// workspace's) with their RFC 9728 metadata, through the go-sdk's handler.
func (o *OAuth) serveMetadata(w http.ResponseWriter, r *http.Request) {
	ws, ok := "", r.URL.Path == resourceMetadataPath
	if rest, found := strings.CutPrefix(r.URL.Path, resourceMetadataPath+"/mcp/"); found && validWorkspace(rest) {
		ws, ok = rest, true
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               o.workspaceURL(ws),
		AuthorizationServers:   o.opts.AuthorizationServers,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "tether",
	}).ServeHTTP(w, r)
}

// runTierKey carries a session's principal tier into StartRun's context.
type runTierKey struct{}

// runPrincipalKey carries the key of the principal that opened a session
// into StartRun's context.
type runPrincipalKey struct{}

// RunTier returns the highest tier the principal that opened a session may
// use, from the context a Host passes HostOptions.StartRun: a JWT's tier
// claim (or OAuthOptions.DefaultTier), tools.TierExec for a tokens file's
// token. StartRun caps the run's surface with it.
func RunTier(ctx context.Context) tools.Tier {
	if t, ok := ctx.Value(runTierKey{}).(tools.Tier); ok {
		return t
	}
	return tools.TierExec
}

// RunPrincipal returns an opaque key of the principal that opened a
// session (a tokens file entry, a JWT's issuer and subject; never its
// secret), from the context a Host passes HostOptions.StartRun; "" outside
// a host. Every workspace a run of that principal reaches it may open
// itself, so what its runs share (such as parsed trees) tells it nothing of
// another principal's.
func RunPrincipal(ctx context.Context) string {
	k, _ := ctx.Value(runPrincipalKey{}).(string)
	return k
}

// withRun is ctx carrying the tier and key of a session's principal, for
// StartRun.
func withRun(ctx context.Context, tier tools.Tier, principal string) context.Context {
	return context.WithValue(context.WithValue(ctx, runTierKey{}, tier), runPrincipalKey{}, principal)
}

// withRunTier is ctx carrying the tier of request r's principal (serveMCP
// puts it in r's context) and the principal's key, for StartRun.
func withRunTier(ctx context.Context, r *http.Request, principal string) context.Context {
	return withRun(ctx, RunTier(r.Context()), principal)
}
