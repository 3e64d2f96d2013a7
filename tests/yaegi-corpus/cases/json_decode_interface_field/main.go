package main

import (
	"encoding/json"
	"fmt"
)

type Shape interface{ Area() float64 }

type Drawing struct {
	Name  string `json:"name"`
	Shape Shape  `json:"shape"`
}

func main() {
	var d Drawing
	err := json.Unmarshal([]byte(`{"name":"d","shape":{"w":2}}`), &d)
	fmt.Println(err, d.Name, d.Shape == nil)
	err = json.Unmarshal([]byte(`{"name":"e","shape":null}`), &d)
	fmt.Println(err, d.Name, d.Shape == nil)
}
