package main

import (
	"fmt"
)

func main() {
	x := 1
	defer fmt.Println("deferred x =", x)
	s := []int{1}
	defer fmt.Println("deferred len =", len(s))
	x = 2
	s = append(s, 2, 3)
	fmt.Println("x =", x, "len =", len(s))
}
