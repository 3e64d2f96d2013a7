package main

import (
	"fmt"
)

func next() (n int) {
	n++
	return
}

func split(sum int) (x, y int) {
	x = sum * 4 / 9
	y = sum - x
	return
}

func main() {
	for i := 0; i < 3; i++ {
		fmt.Print(next(), " ")
	}
	fmt.Println()
	for i := 0; i < 2; i++ {
		a, b := split(17)
		fmt.Println(a, b)
	}
}
