package main

import (
	"fmt"
)

type Color int

const (
	Red Color = iota
	Green
	Blue
)

func (c Color) String() string {
	switch c {
	case Red:
		return "Red"
	case Green:
		return "Green"
	}
	return "Blue"
}

func main() {
	for c := Red; c <= Blue; c++ {
		fmt.Println(c, int(c))
	}
}
