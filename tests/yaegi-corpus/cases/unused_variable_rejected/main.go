package main

import (
	"fmt"
)

func main() {
	unused := 42
	fmt.Println("the compiler rejects this program")
}
