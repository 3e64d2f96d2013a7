package main

import (
	"fmt"
)

type Point struct{ X, Y int }

func (p Point) String() string { return fmt.Sprintf("(%d,%d)", p.X, p.Y) }

func main() {
	pts := []Point{{1, 2}, {3, 4}}
	fmt.Println(pts)
	m := map[string]Point{"a": {5, 6}}
	fmt.Println(m)
}
