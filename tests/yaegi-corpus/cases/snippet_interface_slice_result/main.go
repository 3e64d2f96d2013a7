package snippet

import (
	"context"
)

type Shape interface{ Area() float64 }

type Square struct {
	Side float64 `json:"side"`
}

func (s Square) Area() float64 { return s.Side * s.Side }

func run(ctx context.Context) (any, error) {
	shapes := []Shape{Square{2}, Square{3}}
	total := 0.0
	for _, s := range shapes {
		total += s.Area()
	}
	return map[string]any{"shapes": shapes, "total": total}, nil
}
