package snippet

import (
	"context"
	"math"
)

func run(ctx context.Context) (any, error) {
	return map[string]float64{"x": math.NaN()}, nil
}
