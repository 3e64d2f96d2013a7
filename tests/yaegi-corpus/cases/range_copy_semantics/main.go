package main

import (
	"fmt"
)

type item struct {
	Name string
	Qty  int
}

func main() {
	items := []item{{"a", 1}, {"b", 2}}
	for _, it := range items {
		it.Qty *= 10
	}
	fmt.Println(items[0].Qty, items[1].Qty)
	for i := range items {
		items[i].Qty *= 10
	}
	fmt.Println(items[0].Qty, items[1].Qty)
	m := map[string]item{"x": {"x", 1}}
	v := m["x"]
	v.Qty = 99
	fmt.Println(m["x"].Qty, v.Qty)
}
