package operator_test

import "fmt"

import "github.com/tetherhq/tether/operator"

// A card as the terminal port draws it, and a typed reply read back.
func ExampleParseReply() {
	q := operator.Question{
		Question:      "Which checks should run before merge?",
		Options:       []operator.Option{{Label: "tests"}, {Label: "lint", Description: "go vet and gofmt"}, {Label: "bench"}},
		MultiSelect:   true,
		AllowFreeText: true,
	}
	fmt.Print(operator.Card(q, 1))
	a, err := operator.ParseReply(q, "2, 1: skip the slow ones")
	if err != nil {
		panic(err)
	}
	fmt.Println(a.Report())
	// Output:
	// -- question #1 --
	// Which checks should run before merge?
	//   1) tests
	//   2) lint - go vet and gofmt
	//   3) bench
	// Type numbers 1-3 separated by commas, or your own answer (numbers then ': text' to add a note); /skip to skip.
	// The operator answered.
	// Chosen (2): tests; lint
	// Text: skip the slow ones
}
