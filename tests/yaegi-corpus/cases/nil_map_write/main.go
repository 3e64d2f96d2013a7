package main

import (
	"fmt"
)

func main() {
	var m map[string]int
	fmt.Println(m["x"], len(m))
	m["x"] = 1
}
