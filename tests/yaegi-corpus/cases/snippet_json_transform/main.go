package snippet

import (
	"context"
	"encoding/json"
)

const input = `[{"id":1,"tags":["x","y"],"active":true},{"id":2,"tags":[],"active":false},{"id":3,"tags":["y"],"active":true}]`

type item struct {
	ID     int      `json:"id"`
	Tags   []string `json:"tags"`
	Active bool     `json:"active"`
}

func run(ctx context.Context) (any, error) {
	var items []item
	if err := json.Unmarshal([]byte(input), &items); err != nil {
		return nil, err
	}
	tagCount := map[string]int{}
	var active []int
	for _, it := range items {
		if it.Active {
			active = append(active, it.ID)
		}
		for _, t := range it.Tags {
			tagCount[t]++
		}
	}
	return map[string]any{"active": active, "tags": tagCount}, nil
}
