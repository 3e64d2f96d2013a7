package main

import (
	"fmt"
)

type account struct {
	Owner   string
	balance int
}

func main() {
	a := account{"Eve", 10}
	fmt.Printf("%+v\n", a)
}
