package main

import (
	"fmt"
)

type Tree struct {
	Left, Right *Tree
	Val         int
}

func (t *Tree) Insert(v int) *Tree {
	if t == nil {
		return &Tree{Val: v}
	}
	if v < t.Val {
		t.Left = t.Left.Insert(v)
	} else {
		t.Right = t.Right.Insert(v)
	}
	return t
}

func (t *Tree) Walk(f func(int)) {
	if t == nil {
		return
	}
	t.Left.Walk(f)
	f(t.Val)
	t.Right.Walk(f)
}

func main() {
	var root *Tree
	for _, v := range []int{5, 3, 8, 1, 4, 9, 7} {
		root = root.Insert(v)
	}
	var out []int
	root.Walk(func(v int) { out = append(out, v) })
	fmt.Println(out)
}
