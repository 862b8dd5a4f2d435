package server

import "time"

// SetKeepAliveEvery sets how long a call may go without a progress
// notification, and returns the function that restores it.
func SetKeepAliveEvery(d time.Duration) func() {
	old := keepAliveEvery
	keepAliveEvery = d
	return func() { keepAliveEvery = old }
}
