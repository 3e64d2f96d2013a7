package main

import (
	"fmt"
)

func grade(n int) string {
	switch {
	case n >= 90:
		return "A"
	case n >= 80:
		return "B"
	}
	return "C"
}

func main() {
	for _, n := range []int{95, 85, 50} {
		fmt.Print(grade(n))
	}
	fmt.Println()
	switch x := 2; x {
	case 1:
		fmt.Println("one")
	case 2:
		fmt.Println("two")
		fallthrough
	case 3:
		fmt.Println("three (fallthrough)")
	default:
		fmt.Println("default")
	}
}
