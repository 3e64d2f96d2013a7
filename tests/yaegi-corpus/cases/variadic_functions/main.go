package main

import (
	"fmt"
	"strconv"
)

func sum(prefix string, nums ...int) string {
	t := 0
	for _, n := range nums {
		t += n
	}
	return prefix + strconv.Itoa(t)
}

func main() {
	fmt.Println(sum("a="), sum("b=", 1, 2), sum("c=", []int{4, 5, 6}...))
	args := []any{"x", 1, true}
	fmt.Println(args...)
}
