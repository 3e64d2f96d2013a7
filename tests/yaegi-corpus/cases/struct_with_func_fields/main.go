package main

import (
	"fmt"
)

type handler struct {
	name string
	fn   func(int) int
}

func main() {
	hs := []handler{
		{"double", func(x int) int { return x * 2 }},
		{"square", func(x int) int { return x * x }},
	}
	acc := 3
	for _, h := range hs {
		acc = h.fn(acc)
		fmt.Println(h.name, acc)
	}
	total := 0
	add := func(n int) { total += n }
	for _, n := range []int{1, 2, 3} {
		add(n)
	}
	fmt.Println(total)
}
