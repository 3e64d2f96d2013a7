package main

import (
	"errors"
	"fmt"
	"strconv"
)

var x = "package"

func main() {
	fmt.Println(x)
	x := "function"
	{
		x := "block"
		fmt.Println(x)
	}
	if x := 5; x > 3 {
		fmt.Println("if", x)
	}
	fmt.Println(x)
	err := errors.New("outer")
	if true {
		_, err := strconv.Atoi("1")
		fmt.Println(err)
	}
	fmt.Println(err)
}
