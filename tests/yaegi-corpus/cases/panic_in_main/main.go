package main

import (
	"fmt"
)

func main() {
	fmt.Println("before")
	panic("something went wrong")
}
