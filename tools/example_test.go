package tools_test

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "os"
import "strings"

import "github.com/tetherhq/tether/tools"

// Example embeds tether in an agent runtime: one Run per conversation, its
// tools listed for the model's surface, calls made by name.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	run, err := tools.NewRun(ctx, tools.Config{
		WorkDir:        dir,
		ConversationID: "conv-1",
		Surface:        tools.SurfaceDefault,
		// Ask a human before write and exec calls; here every request is approved.
		Approver: tools.ApproverFunc(func(ctx context.Context, q tools.ApprovalRequest) (bool, error) {
			fmt.Println("approve?", q.Tool)
			return true, nil
		}),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer run.Close()

	for _, t := range run.List() {
		fmt.Println(t.Name, t.Tier)
	}
	res, _ := run.Call(ctx, "write", json.RawMessage(`{"path":"notes/todo.txt","content":"ship it\n"}`), tools.FromModel)
	fmt.Println(res.AllText())
	res, _ = run.Call(ctx, "read", json.RawMessage(`{"path":"notes/todo.txt"}`), tools.FromModel)
	fmt.Println(res.AllText())
	_, err = run.Call(ctx, "read", json.RawMessage(`{"path":"../etc/passwd"}`), tools.FromModel)
	fmt.Println(strings.ReplaceAll(err.Error(), run.WorkDir(), "DIR"))
	_, err = run.Call(ctx, "eval", json.RawMessage(`{}`), tools.FromModel)
	fmt.Println(errors.Is(err, tools.ErrUnknownTool))
	// Output:
	// apply_patch write
	// edit write
	// notebook read
	// notebook_edit write
	// read read
	// resolve write
	// write write
	// approve? write
	// wrote 8 bytes (1 line) to notes/todo.txt (created)
	//      1	ship it
	// tools: read: refused: "../etc/passwd": path leads outside the working directory (DIR); give a path inside it
	// true
}
