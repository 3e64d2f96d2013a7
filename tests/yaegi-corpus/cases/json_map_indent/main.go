package main

import (
	"encoding/json"
	"fmt"
)

func main() {
	data := map[string]any{
		"name":   "widget",
		"count":  3,
		"price":  9.99,
		"labels": []string{"x", "y"},
		"nested": map[string]int{"b": 2, "a": 1},
		"ok":     true,
		"none":   nil,
	}
	b, _ := json.MarshalIndent(data, "", "  ")
	fmt.Println(string(b))
}
