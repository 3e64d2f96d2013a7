package main

import (
	"fmt"
	"maps"
	"slices"
)

func main() {
	m := map[string]int{"x": 1, "y": 2, "z": 3}
	keys := slices.Sorted(maps.Keys(m))
	fmt.Println(keys)
	c := maps.Clone(m)
	delete(c, "x")
	fmt.Println(len(m), len(c))
}
