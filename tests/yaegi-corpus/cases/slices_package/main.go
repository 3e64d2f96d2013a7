package main

import (
	"fmt"
	"slices"
)

func main() {
	xs := []int{3, 1, 4, 1, 5, 9, 2, 6}
	slices.Sort(xs)
	fmt.Println(xs, slices.Contains(xs, 9), slices.Index(xs, 4), slices.Max(xs))
	ys := slices.Clone(xs)
	slices.Reverse(ys)
	fmt.Println(ys, slices.Equal(xs, ys))
}
