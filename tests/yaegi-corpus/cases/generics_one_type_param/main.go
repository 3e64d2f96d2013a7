package main

import (
	"fmt"
)

func Filter[T any](xs []T, keep func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

func Sum[T int | float64](xs []T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

func main() {
	evens := Filter([]int{1, 2, 3, 4, 5, 6}, func(n int) bool { return n%2 == 0 })
	fmt.Println(evens, Sum(evens), Sum([]float64{1.5, 2.5}))
	fmt.Println(Filter([]string{"a", "bb", "ccc"}, func(s string) bool { return len(s) > 1 }))
}
