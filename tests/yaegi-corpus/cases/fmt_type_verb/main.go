package main

import (
	"fmt"
)

type Celsius float64

type Box struct{ W, H int }

func main() {
	fmt.Printf("%T %T %T %T\n", 1, "s", Celsius(2), Box{})
}
