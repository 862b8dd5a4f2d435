package main

import "bytes"
import "context"
import "encoding/json"
import "fmt"
import "io"
import "strings"

func init() {
	register("tools", "list the tools a run offers on a surface: names, tiers and schemas", runTools)
}

func runTools(args []string, stdout, stderr io.Writer) int {
	c := newRunCommand("tools", "usage: tether tools [flags]\n\nLists the tools a run with these flags offers on the surface.\n\nflags:", stderr)
	asJSON := c.Bool("json", false, "print the list as JSON")
	if !c.parse(args, 0, 0) {
		return 2
	}
	cfg, ok := c.config()
	if !ok {
		return 2
	}
	run, closeRun, err := startRun(context.Background(), cfg, wireEnv{Stderr: stderr})
	if err != nil {
		fmt.Fprintln(stderr, "tether:", err)
		return 1
	}
	defer closeRun()
	type entry struct {
		Name        string          `json:"name"`
		Tier        string          `json:"tier"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	var list []entry
	for _, t := range run.List() {
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		list = append(list, entry{t.Name, t.Tier.String(), t.Description, schema})
	}
	if *asJSON {
		if !printJSON(stdout, stderr, list) {
			return 1
		}
		return 0
	}
	fmt.Fprintf(stdout, "%d tools on the %s surface (families wired: %s)\n", len(list), run.Surface(), strings.Join(run.Families(), ", "))
	for _, e := range list {
		// The whole description, as the model sees it (apply_patch's spells
		// out the patch format over several lines).
		desc := strings.ReplaceAll(strings.TrimRight(e.Description, "\n"), "\n", "\n  ")
		fmt.Fprintf(stdout, "\n%s (%s)\n  %s\n  schema: %s\n", e.Name, e.Tier, desc, compact(e.InputSchema))
	}
	return 0
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// printJSON writes v to stdout as indented JSON, or says on stderr why it
// cannot and returns false.
func printJSON(stdout, stderr io.Writer, v any) bool {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintln(stderr, "tether:", err)
		return false
	}
	return true
}
