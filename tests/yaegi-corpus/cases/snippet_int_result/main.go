package snippet

import (
	"context"
)

func run(ctx context.Context) (any, error) {
	sum := 0
	for i := 1; i <= 10; i++ {
		sum += i
	}
	return sum, nil
}
