package greet

import (
	"fmt"
	"strings"
)

// Greeter says hello.
type Greeter struct {
	Name  string
	count int
}

func (g *Greeter) Greet(names ...string) string {
	g.count++
	if len(names) == 0 {
		return fmt.Sprintf("hello, %s", g.Name)
	}
	return "hello, " + strings.Join(names, ", ")
}

func Count[T comparable](xs []T, x T) (n int) {
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return
}
