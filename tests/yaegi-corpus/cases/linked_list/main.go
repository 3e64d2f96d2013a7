package main

import (
	"fmt"
)

type node struct {
	val  int
	next *node
}

type list struct {
	head *node
	size int
}

func (l *list) push(v int) {
	l.head = &node{v, l.head}
	l.size++
}

func (l *list) reverse() {
	var prev *node
	for cur := l.head; cur != nil; {
		next := cur.next
		cur.next = prev
		prev, cur = cur, next
	}
	l.head = prev
}

func main() {
	l := &list{}
	for i := 1; i <= 5; i++ {
		l.push(i)
	}
	l.reverse()
	for n := l.head; n != nil; n = n.next {
		fmt.Print(n.val, " ")
	}
	fmt.Println(l.size)
}
