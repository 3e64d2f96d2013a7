package snippet

import (
	"context"
)

func run(ctx context.Context) (any, error) {
	return nil, nil
}
