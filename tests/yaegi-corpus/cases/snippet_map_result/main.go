package snippet

import (
	"context"
)

func run(ctx context.Context) (any, error) {
	return map[string]any{"count": 3, "names": []string{"a", "b"}, "ratio": 0.25, "ok": true}, nil
}
