package main

import (
	"os"
	"strings"
	"testing"
)

// TestREADMECopy: the README's Quick start is this program, word for
// word, so that what a reader copies compiles and runs.
func TestREADMECopy(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	program, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Quick start\n")
	if !ok {
		t.Fatal("the README has no Quick start section")
	}
	_, block, ok := strings.Cut(section, "```go\n")
	if !ok {
		t.Fatal("the Quick start has no Go code block")
	}
	block, _, ok = strings.Cut(block, "```\n")
	if !ok {
		t.Fatal("the Quick start's code block does not end")
	}
	if block != string(program) {
		t.Errorf("the README's Quick start differs from examples/quickstart/main.go: copy the file into it\n--- README\n%s\n--- main.go\n%s", block, program)
	}
}

// TestQuickStartRuns: the program runs to its end.
func TestQuickStartRuns(t *testing.T) { main() }
