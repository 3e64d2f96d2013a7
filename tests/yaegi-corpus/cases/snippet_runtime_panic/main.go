package snippet

import (
	"context"
)

func run(ctx context.Context) (any, error) {
	var items []string
	return items[2], nil
}
