package main

import "flag"
import "fmt"
import "log/slog"
import "strings"

import "github.com/tetherhq/tether/server"
import "github.com/tetherhq/tether/tools"

// oauthFlags are serve --http's OAuth resource server flags: bearer JWTs
// verified against a JWK Set file, besides the tokens file.
type oauthFlags struct {
	jwks, publicURL, issuer, audiences string
	workspacesClaim, tierClaim         string
	defaultTier                        string
}

func (f *oauthFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.jwks, "jwks", "", "with --http: JWK Set file (RS256 and ES256 keys, each with a kid) to verify bearer JWTs with, besides --tokens; reloaded on SIGHUP; needs --public-url and --jwt-issuer")
	fs.StringVar(&f.publicURL, "public-url", "", "with --jwks: the URL clients reach the host at through the proxy (https://tether.example.com): the resource of /.well-known/oauth-protected-resource, each workspace's being URL/mcp/NAME")
	fs.StringVar(&f.issuer, "jwt-issuer", "", "with --jwks: the iss a JWT must carry")
	fs.StringVar(&f.audiences, "jwt-audience", "", "with --jwks: comma-separated aud values a JWT may carry besides the workspace's URL (--public-url/mcp/NAME); default --public-url")
	fs.StringVar(&f.workspacesClaim, "jwt-workspaces-claim", server.DefaultWorkspacesClaim, "with --jwks: the claim listing the workspaces (names or globs) a JWT may open")
	fs.StringVar(&f.tierClaim, "jwt-tier-claim", server.DefaultTierClaim, "with --jwks: the claim naming the highest tier (read, write or exec) a JWT's sessions get, below the host's own --surface and --approve")
	fs.StringVar(&f.defaultTier, "jwt-default-tier", "read", "with --jwks: the tier of a JWT without the tier claim (read, write or exec)")
}

// load returns the OAuth of the flags, or nil when --jwks is not given.
func (f *oauthFlags) load() (*server.OAuth, error) {
	if f.jwks == "" {
		if f.publicURL != "" || f.issuer != "" || f.audiences != "" {
			return nil, fmt.Errorf("serve --http: --public-url, --jwt-issuer and --jwt-audience need --jwks FILE, the keys tokens are verified with")
		}
		return nil, nil
	}
	var tier tools.Tier
	if err := tier.UnmarshalText([]byte(f.defaultTier)); err != nil {
		return nil, fmt.Errorf("serve --http: --jwt-default-tier: %w", err)
	}
	keys, err := server.LoadJWKS(f.jwks)
	if err != nil {
		return nil, err
	}
	logSkipped(keys)
	var aud []string
	for _, a := range strings.Split(f.audiences, ",") {
		if a = strings.TrimSpace(a); a != "" {
			aud = append(aud, a)
		}
	}
	return server.NewOAuth(server.OAuthOptions{
		ResourceURL: f.publicURL, Issuer: f.issuer, Audiences: aud,
		WorkspacesClaim: f.workspacesClaim, TierClaim: f.tierClaim, DefaultTier: tier,
	}, keys)
}

// reload reads the JWKS file again (SIGHUP); a file that cannot be read or
// holds no usable key keeps the previous keys.
func (f *oauthFlags) reload(o *server.OAuth) {
	if o == nil {
		return
	}
	keys, err := server.LoadJWKS(f.jwks)
	if err != nil {
		slog.Error("tether: JWKS file not reloaded; the previous keys stay", "err", err)
		return
	}
	logSkipped(keys)
	o.SetJWKS(keys)
	slog.Info("tether: JWKS file reloaded", "kids", keys.Kids())
}

func logSkipped(keys *server.JWKS) {
	for _, s := range keys.Skipped {
		slog.Warn("tether: JWKS key left out", "key", s)
	}
}

// capSurface lowers a session's surface to the tier its principal may use
// (server.RunTier): a JWT's tier claim never raises what the host allows.
func capSurface(s tools.Surface, tier tools.Tier) tools.Surface {
	if s == (tools.Surface{}) {
		s = tools.SurfaceDefault
	}
	if tier >= s.Cap {
		return s
	}
	return tools.Surface{Name: s.Name + " (token tier " + tier.String() + ")", Cap: tier}
}
