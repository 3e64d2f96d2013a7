package snippet

import (
	"context"
	"math"
)

type Score struct {
	Name  string  `json:"name"`
	Score float64 `json:"score"`
}

// The marshal_error message names the first NaN or ±Inf in encoding order: items before totals.
func run(ctx context.Context) (any, error) {
	items := []Score{}
	for i := 0; i < 5; i++ {
		score := float64(i)
		if i == 3 {
			score = math.NaN()
		}
		items = append(items, Score{Name: "n", Score: score})
	}
	return map[string]any{"totals": map[string]float64{"b": math.Inf(1), "a": 1}, "items": items}, nil
}
