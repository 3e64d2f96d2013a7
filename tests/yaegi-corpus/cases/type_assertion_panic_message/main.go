package snippet

import (
	"context"
)

func run(ctx context.Context) (any, error) {
	var v any = "text"
	n := v.(int)
	return n, nil
}
