package main

import (
	"fmt"
	"strings"
)

func next(words []string) (string, []string) { return words[0], words[1:] }

// Parallel assignments that mix a call with other values.
func main() {
	words := []string{"alpha", "beta"}
	first, count := "", 0
	first, count = strings.ToUpper(words[0]), len(words)
	fmt.Println(first, count)

	label, size := "none", -1
	label, size = "size", len(words)
	fmt.Println(label, size)

	var pair [2]string
	pair[0], pair[1] = "head", strings.Join(words, "+")
	fmt.Println(pair[0], pair[1])
}
