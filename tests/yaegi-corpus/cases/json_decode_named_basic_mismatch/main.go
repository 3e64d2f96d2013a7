package main

import (
	"encoding/json"
	"fmt"
)

type Status string

type Level int

func main() {
	var s []Status
	fmt.Println(json.Unmarshal([]byte(`["ok", 1]`), &s), s)
	var l map[string]Level
	fmt.Println(json.Unmarshal([]byte(`{"a": "high"}`), &l), l)
}
