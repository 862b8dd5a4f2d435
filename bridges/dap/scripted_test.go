package dap_test

import "github.com/tetherhq/tether/internal/testenv/dapscript"

// The test binary is also the scripted adapter (dapscript.Arg).
func init() { dapscript.Main() }
