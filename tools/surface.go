package tools

import "fmt"
import "strings"

// Surface is where a run's tools are offered: the model's default surface, plan
// mode, or a read-only subagent. Its Cap is the highest tier it sees; tools
// above the cap are left out of its listing and refused by name at call time.
type Surface struct {
	// Name is "default", "plan" or "readonly" for the built-in surfaces.
	Name string
	// Cap is the highest tier the surface allows.
	Cap Tier
}

// The built-in surfaces (docs/tools.md, "Tiers, surfaces and approvals").
var (
	// SurfaceDefault sees every tier, up to exec.
	SurfaceDefault = Surface{Name: "default", Cap: TierExec}
	// SurfacePlan is plan mode: read tools only.
	SurfacePlan = Surface{Name: "plan", Cap: TierRead}
	// SurfaceReadonly is a read-only subagent: read tools only.
	SurfaceReadonly = Surface{Name: "readonly", Cap: TierRead}
)

// Surfaces lists the built-in surfaces.
func Surfaces() []Surface { return []Surface{SurfaceDefault, SurfacePlan, SurfaceReadonly} }

// ParseSurface parses "default", "plan" or "readonly" ("" means default).
func ParseSurface(s string) (Surface, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "default":
		return SurfaceDefault, nil
	case "plan":
		return SurfacePlan, nil
	case "readonly", "read-only", "read_only":
		return SurfaceReadonly, nil
	}
	return Surface{}, fmt.Errorf("tools: unknown surface %q: use default, plan or readonly", s)
}

// Allows reports whether a tool of tier t is visible and callable on s.
func (s Surface) Allows(t Tier) bool { return t >= TierRead && t <= s.Cap }

// String returns the surface's name.
func (s Surface) String() string {
	if s.Name == "" {
		return fmt.Sprintf("surface(cap %s)", s.Cap)
	}
	return s.Name
}
