package search_test

import "os"
import "path/filepath"
import "runtime"
import "testing"

// chunkedGo is Go that a lexer cutting around statements can get wrong:
// braces in strings, runes, comments and composite literals, function
// literals in headers, else chains, statements that do not start a line,
// labels, and statements inside function literals, simple statements that go on
// past a line or end before a comment or a brace.
const chunkedGo = "package p\n\n" + `import "fmt"

func f(xs []int, err error) error {
	if err != nil {
		return fmt.Errorf("{ %w }", err)
	} else if len(xs) == 0 {
		return nil
	} else {
		fmt.Println('{', "}", ` + "`{`" + `)
	}
	for _, x := range []int{1, 2} {
		if x > 0 { return err }
	}
	for i := range xs { // {
		/* } */
		if err != nil {
			return err
		}
		_ = i
	}
outer:
	for {
		select {
		case <-make(chan int):
			break outer
		default: if err != nil { return err }
		}
	}
	if v := []int{1}; len(v) > 0 {
		return err
	}
	if ok := func() bool { for range xs { return true }; return false }(); ok {
		return nil
	}
	go func() {
		for i := 0; i < 3; i++ {
			if err != nil {
				return
			}
		}
	}()
	switch x := len(xs); {
	case x > 1:
		if err != nil { return err }
	}
	switch v := any(err).(type) {
	case error:
		_ = v
	}
	if err == nil { return nil }; if err != nil { return err }
	return nil
}

func h(a, b int, err error) (int, error) {
	defer func() {
		if r := recover(); r != nil {
			return
		}
	}()
	go func(x int) { _ = x }(a)
	defer mu.Unlock() // a comment
	return a +
		b, err /* a comment
	that ends a line */
	return (a +
		b), fmt.Errorf("%d;%d", a, b)
	return a.
		b, nil
	return func() int { return 1 }(), '}'
}

func k(a, b int) (int, error) {
	if a > b { return a, nil }
	return a, nil; return 0, nil
}

func g(err error) (int, error) {
	if err != nil {
		return 0, err
	}
	for k, v := range map[string]int{"a": 1} {
		_, _ = k, v
	}
	return 1, nil
}
`

// TestChunkedGoAgreesWithWhole: a search that parses Go in chunks (top-level
// declarations, or only the statements every match is one of) finds exactly
// what a search parsing every file whole finds, on the golden inputs, the
// tricky file above and a few packages of the standard library (more with
// TETHER_GO_CORPUS: go test ./search -run ChunkedGo -v with
// TETHER_GO_CORPUS=$(go env GOROOT)/src).
func TestChunkedGoAgreesWithWhole(t *testing.T) {
	more := filepath.SplitList(os.Getenv("TETHER_GO_CORPUS"))
	for _, pkg := range []string{"errors", "sort", "bufio", "encoding/csv", "text/tabwriter"} {
		more = append(more, filepath.Join(runtime.GOROOT(), "src", pkg))
	}
	chunkedAgree(t, "go", ".go", map[string]string{"chunked.go": chunkedGo}, more, []string{
		"if err != nil { return $$$ }", "for $I := range $X { $$$ }", "if $C { $$$ }", "for $$$ { $$$ }",
		"switch $X { $$$ }", "switch $X := $Y.(type) { $$$ }", "select { $$$ }", "if $C { $$$ } else { $$$ }",
		"for $I := 0; $I < $N; $I++ { $$$ }", "for { $$$ }", "return $X", "$X.Lock()", "fmt.Errorf($$$)",
		"if $A := $B; $C { $$$ }", "for $K, $V := range $M { $$$ }", "return nil, $E", "return $A, $B", "defer $F()",
		"defer $X.Unlock()", "go func() { $$$ }()", "go $F($$$)", "return",
	})
}
