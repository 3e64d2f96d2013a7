package main

import (
	"slices"
	"testing"
)

func TestStripsDWARF(t *testing.T) {
	for flags, want := range map[string]bool{
		"-buildmode=exe -s -w -extld=gcc": true,
		"-buildmode=exe -w=true":          true,
		"-buildmode=exe -s":               false,
		"-buildmode=exe -w=false":         false,
	} {
		words, _ := splitShellWords(flags)
		if got := stripsDWARF(words); got != want {
			t.Errorf("stripsDWARF(%s) = %v, want %v", flags, got, want)
		}
	}
}

func TestToolEnvironment(t *testing.T) {
	t.Setenv("GOGC", "")
	unknown := toolEnvironment(0, "GOROOT=")
	if slices.Contains(unknown, "GOGC=off") || !slices.Contains(unknown, "GOROOT=") {
		t.Errorf("no memory limit known: want the defaults and the extra variable, got %q", unknown[len(unknown)-2:])
	}
	limited := toolEnvironment(4<<30, "GOROOT=")
	tail := limited[len(limited)-3:]
	if want := []string{"GOROOT=", "GOGC=off", "GOMEMLIMIT=1073741824"}; !slices.Equal(tail, want) {
		t.Errorf("a 4 GiB build: got %q, want %q", tail, want)
	}
}
