package main

import (
	"fmt"
)

func main() {
	var funcs []func() int
	for i := 0; i < 3; i++ {
		funcs = append(funcs, func() int { return i * 10 })
	}
	for _, s := range []string{"a", "b"} {
		funcs = append(funcs, func() int { return len(s) })
	}
	for _, f := range funcs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
}
