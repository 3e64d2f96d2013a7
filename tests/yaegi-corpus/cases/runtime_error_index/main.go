package main

import (
	"fmt"
)

func main() {
	xs := []int{1, 2, 3}
	i := 5
	fmt.Println("len", len(xs))
	fmt.Println(xs[i])
}
