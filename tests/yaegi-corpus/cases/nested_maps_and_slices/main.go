package main

import (
	"fmt"
)

func main() {
	graph := map[string][]string{}
	edges := [][2]string{{"a", "b"}, {"a", "c"}, {"b", "c"}, {"c", "a"}}
	for _, e := range edges {
		graph[e[0]] = append(graph[e[0]], e[1])
	}
	fmt.Println(graph)
	counts := map[string]map[string]int{}
	for _, e := range edges {
		if counts[e[0]] == nil {
			counts[e[0]] = map[string]int{}
		}
		counts[e[0]][e[1]]++
	}
	fmt.Println(counts, len(counts["a"]))
	fmt.Printf("%v %q %x\n", map[int]bool{2: true, 1: false}, []string{"a b", "c"}, "hi")
}
