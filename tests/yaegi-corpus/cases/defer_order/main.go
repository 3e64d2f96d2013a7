package main

import (
	"fmt"
)

func work() (result string) {
	defer func() { result += " +deferred" }()
	for i := 0; i < 3; i++ {
		defer fmt.Println("defer", 2)
	}
	return "done"
}

func main() {
	fmt.Println(work())
}
