package main

import (
	"fmt"
	"strconv"
)

func main() {
	n, err := strconv.Atoi("123")
	fmt.Println(n, err)
	_, err = strconv.Atoi("12a")
	fmt.Println(err)
	f, _ := strconv.ParseFloat("3.25", 64)
	fmt.Println(f*2, strconv.FormatInt(255, 16), strconv.Quote("hi\n"), strconv.Itoa(-7))
	b, err := strconv.ParseBool("maybe")
	fmt.Println(b, err)
}
