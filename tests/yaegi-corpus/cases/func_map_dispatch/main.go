package main

import (
	"fmt"
)

func main() {
	ops := map[string]func(int, int) int{
		"add": func(a, b int) int { return a + b },
		"sub": func(a, b int) int { return a - b },
		"mul": func(a, b int) int { return a * b },
	}
	names := []string{"add", "mul", "sub"}
	for _, n := range names {
		fmt.Println(n, ops[n](6, 3))
	}
	apply := func(f func(int) int, xs []int) []int {
		out := make([]int, len(xs))
		for i, x := range xs {
			out[i] = f(x)
		}
		return out
	}
	fmt.Println(apply(func(x int) int { return x * x }, []int{1, 2, 3}))
}
