package main

import (
	"fmt"
	"reflect"
)

type T struct {
	A int
	b string
}

func main() {
	t := reflect.TypeOf(T{})
	for i := 0; i < t.NumField(); i++ {
		fmt.Println(t.Field(i).Name)
	}
}
