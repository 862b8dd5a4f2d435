package main

import (
	"errors"
	"fmt"
	"sync"
)

type Server struct {
	mu    sync.Mutex
	count int
	name  string
}

func (s *Server) Inc() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.count++
}

func (s *Server) Bad() {
	s.mu.Lock()
	s.count--
	s.mu.Unlock()
}

func load(path string) (string, error) {
	if path == "" {
		return "", errors.New("empty path")
	}
	data, err := read(path)
	if err != nil {
		return "", fmt.Errorf("load %s: %w", path, err)
	}
	if err != nil {
		return "", err
	}
	return data, nil
}

func read(p string) (string, error) { return p, nil }

func loop(items []int) int {
	total := 0
	for i := 0; i < len(items); i++ {
		total += items[i]
	}
	for _, v := range items {
		if v > 10 {
			fmt.Println("big", v)
		}
	}
	return total
}

func main() {
	s := &Server{name: "a"}
	s.Inc()
	fmt.Println(s.count, 1, 2, 3)
	fmt.Printf("%d\n", s.count)
	_, _ = load("x")
	go func() {
		fmt.Println("bg")
	}()
	var list []string
	list = append(list, "a")
	list = append(list, "b", "c")
	// TODO: remove this
	println(len(list))
}
