package main

import (
	"encoding/json"
	"fmt"
)

type Node struct {
	Name     string  `json:"name"`
	Children []*Node `json:"children"`
}

func count(n *Node) int {
	total := 1
	for _, c := range n.Children {
		total += count(c)
	}
	return total
}

func main() {
	var root Node
	err := json.Unmarshal([]byte(`{"name":"r","children":[{"name":"a","children":[{"name":"b"}]},{"name":"c"}]}`), &root)
	fmt.Println(err, root.Name, count(&root), root.Children[0].Children[0].Name)
}
