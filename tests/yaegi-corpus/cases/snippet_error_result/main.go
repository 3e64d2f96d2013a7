package snippet

import (
	"context"
	"fmt"
)

func run(ctx context.Context) (any, error) {
	return nil, fmt.Errorf("bucket %q not found", "logs")
}
