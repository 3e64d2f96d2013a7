package main

import (
	"fmt"
)

type Box struct {
	W, H  int
	Label string
}

func main() {
	b := Box{2, 3, "crate"}
	fmt.Println(b)
	fmt.Printf("%v %v\n", b, &b)
	fmt.Println([]Box{b, {1, 1, "tiny"}})
}
