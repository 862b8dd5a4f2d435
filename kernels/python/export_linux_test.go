package python

import "time"

// SetZygoteAnswer sets how long a request waits for a zygote's answer, for
// a test of a zygote that never answers; it returns the old value.
func SetZygoteAnswer(d time.Duration) time.Duration {
	old := zygoteAnswer
	zygoteAnswer = d
	return old
}
