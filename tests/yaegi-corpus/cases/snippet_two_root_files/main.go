package tool

import (
	"context"
)

func run(ctx context.Context) (any, error) {
	return normalize([]string{" A ", "b", "  C"}), nil
}
