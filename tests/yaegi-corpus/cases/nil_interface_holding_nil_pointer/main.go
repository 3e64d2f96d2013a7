package main

import (
	"fmt"
)

type Speaker interface{ Speak() string }

type Dog struct{}

func (d *Dog) Speak() string {
	if d == nil {
		return "nil dog"
	}
	return "woof"
}

func find(ok bool) *Dog {
	if ok {
		return &Dog{}
	}
	return nil
}

func main() {
	var s Speaker = find(false)
	fmt.Println(s != nil, s.Speak())
	var d *Dog
	fmt.Println(d == nil)
}
