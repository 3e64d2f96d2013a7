package main

import (
	"fmt"
)

func counter() func() int {
	n := 0
	return func() int {
		n++
		return n
	}
}

func main() {
	c1, c2 := counter(), counter()
	fmt.Println(c1(), c1(), c1(), c2())
	add := func(a int) func(int) int { return func(b int) int { return a + b } }
	fmt.Println(add(2)(3))
}
