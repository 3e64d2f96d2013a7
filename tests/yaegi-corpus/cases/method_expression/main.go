package main

import (
	"fmt"
)

type Rect struct{ W, H int }

func (r Rect) Area() int { return r.W * r.H }

func main() {
	area := Rect.Area
	fmt.Println(area(Rect{3, 4}))
}
