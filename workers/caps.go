package workers

import "github.com/tetherhq/tether/internal/proc"

// DefaultProcessLimit is the tasks (processes and threads) one worker's
// run (its command and everything it starts) may have at once when
// Config.ProcessLimit is zero: the eval kernels' cap, above what an agent
// and the tools it runs start, far below what a fork bomb needs.
const DefaultProcessLimit = 256

// DefaultAddressSpaceLimit is the address-space limit (RLIMIT_AS) of each
// process of a worker's run when Config.AddressSpaceLimit is zero: the
// Python kernel's, above what node, Go and Python programs reserve at
// start, below what a runaway allocation takes from the host.
const DefaultAddressSpaceLimit = 8 << 30

// addressSpaceLimit is the address-space limit to start runs with, or 0
// for none.
func (c Config) addressSpaceLimit() uint64 {
	return uint64(proc.Limit(c.AddressSpaceLimit, DefaultAddressSpaceLimit))
}

// processLimit is the cap to start runs with, or 0 for none.
func (c Config) processLimit() int { return proc.Limit(c.ProcessLimit, DefaultProcessLimit) }
