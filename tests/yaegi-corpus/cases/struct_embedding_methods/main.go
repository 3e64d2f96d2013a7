package main

import (
	"fmt"
)

type Animal struct{ Name string }

func (a Animal) Describe() string { return "animal " + a.Name }

type Dog struct {
	Animal
	Breed string
}

func main() {
	d := Dog{Animal{"Rex"}, "lab"}
	fmt.Println(d.Describe(), d.Name, d.Breed)
}
