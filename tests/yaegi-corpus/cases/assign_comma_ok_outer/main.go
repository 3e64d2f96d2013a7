package main

import "fmt"

type Point struct{ X, Y int }

// Comma-ok lookups and assertions that store into existing variables: a miss stores the zero value.
func main() {
	stock := map[string]int{"apples": 3}
	n, found := 10, true
	n, found = stock["pears"]
	fmt.Println(n, found)

	points := map[string]Point{}
	p := Point{1, 2}
	p, found = points["origin"]
	fmt.Println(p.X, p.Y, found)

	var v any = 42
	s := "previous"
	s, found = v.(string)
	fmt.Printf("%q %v\n", s, found)
}
