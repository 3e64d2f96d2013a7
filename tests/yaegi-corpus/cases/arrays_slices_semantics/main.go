package main

import (
	"fmt"
)

func main() {
	a := [3]int{1, 2, 3}
	b := a
	b[0] = 100
	fmt.Println(a, b)
	s := a[:2]
	s[1] = 200
	fmt.Println(a, s, len(s), cap(s))
	t := append(s, 300)
	fmt.Println(a, t)
	u := make([]int, 2, 10)
	v := append(u, 1)
	w := append(u, 2)
	fmt.Println(v, w)
	c := copy(u, []int{7, 8, 9})
	fmt.Println(u, c)
	var nilSlice []int
	fmt.Println(nilSlice == nil, len(nilSlice), append(nilSlice, 1))
}
