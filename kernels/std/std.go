// Package std assembles tether's standard kernel factory: Python (an external
// interpreter over pipes) and JavaScript (embedded goja).
package std

import (
	"github.com/tetherhq/tether/kernels"
	"github.com/tetherhq/tether/kernels/js"
	"github.com/tetherhq/tether/kernels/python"
)

// NewFactory returns a factory for Python and JavaScript kernels with the
// given defaults (idle budget, output bounds, configured python, ...).
func NewFactory(defaults kernels.Config) *kernels.Factory {
	return kernels.NewFactory(defaults, map[kernels.Language]kernels.Constructor{
		kernels.Python:     python.New,
		kernels.JavaScript: js.New,
	})
}
