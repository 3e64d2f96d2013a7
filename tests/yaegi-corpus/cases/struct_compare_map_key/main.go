package main

import (
	"fmt"
)

type Point struct{ X, Y int }

func main() {
	visits := map[Point]int{}
	path := []Point{{0, 0}, {1, 0}, {0, 0}, {1, 1}, {0, 0}}
	for _, p := range path {
		visits[p]++
	}
	fmt.Println(visits[Point{0, 0}], visits[Point{1, 1}], len(visits))
	fmt.Println(Point{1, 2} == Point{1, 2}, Point{1, 2} == Point{2, 1})
}
