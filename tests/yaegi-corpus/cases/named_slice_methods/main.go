package main

import (
	"fmt"
)

type Stack []int

func (s *Stack) Push(v int) { *s = append(*s, v) }

func (s *Stack) Pop() int {
	old := *s
	v := old[len(old)-1]
	*s = old[:len(old)-1]
	return v
}

func (s Stack) Len() int { return len(s) }

func main() {
	var s Stack
	for i := 1; i <= 3; i++ {
		s.Push(i * i)
	}
	fmt.Println(s.Pop(), s.Len(), s)
}
