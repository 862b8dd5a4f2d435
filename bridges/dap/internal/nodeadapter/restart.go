package nodeadapter

import "errors"
import "fmt"

// restartFrameParams are Debugger.restartFrame's: mode StepInto pauses
// at the start of the restarted function (node 20's inspector refuses the
// request without a mode).
type restartFrameParams struct {
	CallFrameID string `json:"callFrameId"`
	Mode        string `json:"mode"`
}

// restartFrame runs a paused frame again from its start: the inspector
// unwinds to it and pauses at its first statement, and the stopped event
// says "restart". The frame's side effects so far are not undone.
func (a *adapter) restartFrame(id int) error {
	f, err := a.frame(id)
	if err != nil {
		return err
	}
	a.mu.Lock()
	a.lastCmd = "restartFrame"
	a.mu.Unlock()
	err = a.call("Debugger.restartFrame", restartFrameParams{CallFrameID: f.CallFrameID, Mode: "StepInto"}, nil)
	if err != nil {
		a.mu.Lock()
		a.lastCmd = ""
		a.mu.Unlock()
		if errors.Is(err, errCDPClosed) {
			return nil
		}
		return fmt.Errorf("node cannot restart frame %s: %w", f.FunctionName, err)
	}
	return nil
}
