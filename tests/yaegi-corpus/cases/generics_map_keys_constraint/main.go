package main

import (
	"fmt"
	"sort"
)

type Number interface {
	~int | ~int64 | ~float64
}

func Max[T Number](a, b T) T {
	if a > b {
		return a
	}
	return b
}

func Keys[K comparable, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

func main() {
	fmt.Println(Max(3, 7), Max(2.5, 1.5))
	ks := Keys(map[string]int{"b": 1, "a": 2})
	sort.Strings(ks)
	fmt.Println(ks)
}
