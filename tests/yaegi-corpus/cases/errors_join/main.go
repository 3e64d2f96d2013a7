package main

import (
	"errors"
	"fmt"
)

func main() {
	e1 := errors.New("first")
	e2 := errors.New("second")
	joined := errors.Join(e1, e2)
	fmt.Println(joined)
	fmt.Println(errors.Is(joined, e2))
}
