package main

import (
	"errors"
	"fmt"
	"sync"
)

type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) add(key string) error {
	if key == "" {
		return errors.New("empty key")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[key]++
	return nil
}

func main() {
	c := &counter{n: map[string]int{}}
	for _, k := range []string{"a", "b", "a", ""} {
		if err := c.add(k); err != nil {
			fmt.Println(fmt.Errorf("add %q: %w", k, err))
		}
	}
	fmt.Println(c.n)
}
