package main

import (
	"fmt"
	"kode_gopher_user/mathx"
	"kode_gopher_user/textx"
)

func main() {
	fmt.Println(mathx.Clamp(15, 0, 10), mathx.Mean([]float64{1, 2, 3, 4}))
	fmt.Println(textx.Slug("Hello Big World"))
}
