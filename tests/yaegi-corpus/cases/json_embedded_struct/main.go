package main

import (
	"encoding/json"
	"fmt"
)

type Base struct {
	ID      int    `json:"id"`
	Created string `json:"created"`
}

type Item struct {
	Base
	Name string `json:"name"`
}

func main() {
	b, _ := json.Marshal(Item{Base: Base{ID: 7, Created: "2024-01-01"}, Name: "box"})
	fmt.Println(string(b))
}
