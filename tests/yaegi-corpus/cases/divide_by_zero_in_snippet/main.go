package snippet

import (
	"context"
)

func run(ctx context.Context) (any, error) {
	total, count := 10, 0
	return total / count, nil
}
