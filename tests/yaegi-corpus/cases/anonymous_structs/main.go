package main

import (
	"encoding/json"
	"fmt"
)

func main() {
	rows := []struct {
		Name  string `json:"name"`
		Score int    `json:"score"`
	}{{"a", 1}, {"b", 2}}
	total := 0
	for _, r := range rows {
		total += r.Score
	}
	b, _ := json.Marshal(rows)
	fmt.Println(total, string(b))
}
