package main

import (
	"fmt"
)

var order []string

func init() { order = append(order, "init1") }

var computed = compute()

func compute() int {
	order = append(order, "var")
	return 42
}

func init() { order = append(order, "init2") }

func main() {
	order = append(order, "main")
	fmt.Println(order, computed)
}
