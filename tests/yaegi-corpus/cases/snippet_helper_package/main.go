package snippet

import (
	"context"
	"kode_gopher_user/stats"
)

func run(ctx context.Context) (any, error) {
	return stats.Describe([]float64{4, 8, 15, 16, 23, 42}), nil
}
