package server

import "crypto"
import "crypto/ecdsa"
import "crypto/elliptic"
import "crypto/rsa"
import "encoding/base64"
import "encoding/json"
import "errors"
import "fmt"
import "math/big"
import "os"
import "sort"

// JWKS is a set of public keys bearer JWTs are verified with (RFC 7517),
// by key id: RSA keys of at least 2048 bits for RS256 and P-256 keys for
// ES256. Keys of other types, curves or algorithms, and keys whose "use"
// is not "sig", are left out and listed in Skipped, so that an identity
// provider's whole key set can be given as it is.
type JWKS struct {
	keys map[string]jwk
	// Skipped says, one line a key, which keys were left out and why.
	Skipped []string
}

type jwk struct {
	alg string // RS256 or ES256
	pub crypto.PublicKey
}

// rawJWK is one member of a JWK Set's "keys".
type rawJWK struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// ParseJWKS reads a JWK Set ({"keys": [...]}). Every usable key needs a
// "kid" (a token names its key by it) and no two may share one; a set with
// no usable key is refused, since no token could be verified.
func ParseJWKS(data []byte) (*JWKS, error) {
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("server: JWKS file: %w (want a JWK Set: {\"keys\": [{\"kty\": \"RSA\", \"kid\": ..., \"n\": ..., \"e\": ...}]})", err)
	}
	s := &JWKS{keys: map[string]jwk{}}
	for i, raw := range set.Keys {
		var k rawJWK
		if err := json.Unmarshal(raw, &k); err != nil {
			return nil, fmt.Errorf("server: JWKS file: key %d: %w", i+1, err)
		}
		key, err := k.public()
		if err != nil {
			s.Skipped = append(s.Skipped, fmt.Sprintf("key %d (kid %q): %v", i+1, k.Kid, err))
			continue
		}
		if k.Kid == "" {
			return nil, fmt.Errorf("server: JWKS file: key %d has no \"kid\"; give every key an id, which tokens name in their header's kid", i+1)
		}
		if _, dup := s.keys[k.Kid]; dup {
			return nil, fmt.Errorf("server: JWKS file: two keys have kid %q; give each key its own id", k.Kid)
		}
		s.keys[k.Kid] = key
	}
	if len(s.keys) == 0 {
		return nil, fmt.Errorf("server: JWKS file has no RS256 or ES256 signing key, so no token could be verified (%d keys left out: %v)", len(s.Skipped), s.Skipped)
	}
	return s, nil
}

// LoadJWKS reads and parses the JWK Set file at name.
func LoadJWKS(name string) (*JWKS, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("server: JWKS file: %w", err)
	}
	return ParseJWKS(data)
}

// Kids returns the ids of the set's keys, sorted.
func (s *JWKS) Kids() []string {
	ids := make([]string, 0, len(s.keys))
	for id := range s.keys {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// public returns the key k holds and the one algorithm it verifies, or why
// it is left out.
func (k rawJWK) public() (jwk, error) {
	if k.Use != "" && k.Use != "sig" {
		return jwk{}, fmt.Errorf("use %q is not sig", k.Use)
	}
	switch k.Kty {
	case "RSA":
		if k.Alg != "" && k.Alg != "RS256" {
			return jwk{}, fmt.Errorf("alg %q: only RS256 is taken for RSA keys", k.Alg)
		}
		n, err1 := b64int(k.N)
		e, err2 := b64int(k.E)
		if err := errors.Join(err1, err2); err != nil {
			return jwk{}, fmt.Errorf("RSA n or e: %w", err)
		}
		if n.BitLen() < 2048 {
			return jwk{}, fmt.Errorf("RSA key of %d bits; at least 2048 are needed", n.BitLen())
		}
		if !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31-1 || e.Bit(0) == 0 {
			return jwk{}, errors.New("RSA exponent is not a small odd number")
		}
		return jwk{alg: "RS256", pub: &rsa.PublicKey{N: n, E: int(e.Int64())}}, nil
	case "EC":
		if k.Alg != "" && k.Alg != "ES256" {
			return jwk{}, fmt.Errorf("alg %q: only ES256 is taken for EC keys", k.Alg)
		}
		if k.Crv != "P-256" {
			return jwk{}, fmt.Errorf("curve %q: only P-256 (ES256) is taken", k.Crv)
		}
		x, err1 := base64.RawURLEncoding.DecodeString(k.X)
		y, err2 := base64.RawURLEncoding.DecodeString(k.Y)
		if err := errors.Join(err1, err2); err != nil || len(x) != 32 || len(y) != 32 {
			return jwk{}, errors.New("EC x and y must be 32 bytes each, base64url without padding")
		}
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
		if err != nil {
			return jwk{}, fmt.Errorf("EC point: %w", err)
		}
		return jwk{alg: "ES256", pub: pub}, nil
	}
	return jwk{}, fmt.Errorf("kty %q: only RSA (RS256) and EC (ES256) keys are taken", k.Kty)
}

// b64int decodes a base64url (no padding) big-endian unsigned integer.
func b64int(s string) (*big.Int, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) == 0 {
		return nil, errors.New("not base64url without padding")
	}
	return new(big.Int).SetBytes(b), nil
}
