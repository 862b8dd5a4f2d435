package tools

import "context"
import "encoding/json"
import "errors"
import "fmt"

import "github.com/tetherhq/tether/search"

// astEditOp is one rewrite of ast_edit's ops.
type astEditOp struct {
	Pattern  string         `json:"pattern,omitempty" jsonschema:"code with metavariables, as ast_edit's pattern (give pattern or rule)" bounds:"minLength=1"`
	Rule     map[string]any `json:"rule,omitempty" jsonschema:"an ast-grep rule object or rule configuration, as ast_edit's rule; its id names the op in messages"`
	Selector string         `json:"selector,omitempty" jsonschema:"optional node kind with pattern, as ast_edit's selector" bounds:"minLength=1,pattern=^[A-Za-z0-9_]+$"`
	Rewrite  *string        `json:"rewrite,omitempty" jsonschema:"the replacement with the op's metavariables (required with pattern; with rule, the rule's fix is used when not given)"`
}

// editPlan computes ast_edit's plan: one query and rewrite, or a plan of
// several ops.
func (s *structural) editPlan(ctx context.Context, tool string, a astEditArgs) (*search.Plan, error) {
	if len(a.Ops) > 0 {
		return s.opsPlan(ctx, tool, a)
	}
	q, err := s.query(tool, a.grepQuery, 0)
	if err != nil {
		return nil, err
	}
	if q.Injections, err = s.injections(ctx, tool); err != nil {
		return nil, err
	}
	rewrite := ""
	switch {
	case a.Rewrite != nil:
		rewrite = *a.Rewrite
	case a.Rule == nil:
		return nil, fmt.Errorf("tools: ast_edit: rewrite is required with pattern (the replacement, with the pattern's metavariables; \"\" deletes each match)")
	}
	q.MaxResults = 0
	q.IncludeErrors = a.IncludeErrors
	q.Progress = filesProgress(ctx)
	plan, err := s.search.Rewrite(ctx, q, rewrite)
	if err != nil {
		return nil, s.relErr(err)
	}
	return plan, nil
}

// opsPlan combines a's ops into one plan (search.Searcher.RewriteOps).
func (s *structural) opsPlan(ctx context.Context, tool string, a astEditArgs) (*search.Plan, error) {
	if a.Pattern != "" || a.Rule != nil || a.Selector != "" || a.Rewrite != nil {
		return nil, errors.New("tools: ast_edit: give ops, or pattern/rule with rewrite, not both (move the pattern and its rewrite into ops)")
	}
	if len(a.Ops) > search.MaxOps {
		return nil, fmt.Errorf("tools: ast_edit: %d ops: at most %d are staged as one edit; split them into several edits", len(a.Ops), search.MaxOps)
	}
	injs, err := s.injections(ctx, tool)
	if err != nil {
		return nil, err
	}
	ops := make([]search.Op, len(a.Ops))
	for i, o := range a.Ops {
		name := opName(i, o)
		g := a.grepQuery
		g.Pattern, g.Rule, g.Selector = o.Pattern, o.Rule, o.Selector
		q, err := s.query(tool, g, 0)
		if err != nil {
			return nil, fmt.Errorf("tools: ast_edit: %s: %w", name, err)
		}
		rewrite := ""
		switch {
		case o.Rewrite != nil:
			rewrite = *o.Rewrite
		case o.Rule == nil:
			return nil, fmt.Errorf("tools: ast_edit: %s: rewrite is required with pattern (the replacement, with the pattern's metavariables; \"\" deletes each match)", name)
		}
		q.MaxResults = 0
		q.IncludeErrors = a.IncludeErrors
		q.Injections = injs
		ops[i] = search.Op{Query: q, Rewrite: rewrite, Name: name}
	}
	plan, err := s.search.RewriteOps(ctx, ops)
	if err != nil {
		return nil, s.relErr(err)
	}
	return plan, nil
}

// opName names op i in messages: its index and its pattern, or its rule's
// id (else the rule itself, cut short).
func opName(i int, o astEditOp) string {
	if o.Rule == nil {
		return fmt.Sprintf("ops[%d] (pattern %q)", i, o.Pattern)
	}
	if id, ok := o.Rule["id"].(string); ok && id != "" {
		return fmt.Sprintf("ops[%d] (rule %q)", i, id)
	}
	b, _ := json.Marshal(o.Rule)
	r := string(b)
	if len(r) > 60 {
		r = r[:57] + "..."
	}
	return fmt.Sprintf("ops[%d] (rule %s)", i, r)
}
