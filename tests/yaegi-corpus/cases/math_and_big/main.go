package main

import (
	"fmt"
	"math"
	"math/big"
)

func main() {
	fmt.Println(math.Sqrt(2), math.Pow(2, 10), math.Floor(-2.5), math.MaxInt64, math.Inf(1))
	fmt.Printf("%.4f %.4f\n", math.Sin(math.Pi/6), math.Log(math.E))
	f := new(big.Int)
	f.MulRange(1, 30)
	fmt.Println(f.String())
	r := new(big.Rat).SetFrac64(1, 3)
	fmt.Println(r.FloatString(5))
}
