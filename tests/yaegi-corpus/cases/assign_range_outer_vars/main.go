package main

import "fmt"

// The last key, value and index of a range kept in variables declared before the loop.
func main() {
	ages := map[string]int{"ada": 36}
	var name string
	var age int
	for name, age = range ages {
	}
	fmt.Println(name, age)

	words := []string{"x", "y", "z"}
	var i int
	var last string
	for i, last = range words {
	}
	fmt.Println(i, last)

	var k string
	for k = range ages {
	}
	fmt.Println(k)
}
