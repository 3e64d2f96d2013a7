package main

import (
	"fmt"
	"sort"
)

func main() {
	xs := []string{"pear", "apple", "fig", "apple", "kiwi", "fig"}
	sort.Strings(xs)
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	fmt.Println(out)
	i := sort.Search(len(out), func(i int) bool { return out[i] >= "kiwi" })
	fmt.Println(i, out[i])
}
