package main

import (
	"fmt"
	"math"
)

func main() {
	var a int8 = 127
	a++
	var b uint8 = 0
	b--
	var c int32 = math.MaxInt32
	c += 1
	x := uint16(65535)
	x += 2
	fmt.Println(a, b, c, x, -7/2, -7%3, 7>>1, 1<<10)
}
