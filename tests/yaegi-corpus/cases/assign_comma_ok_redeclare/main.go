package snippet

import "context"

// := that reuses an existing variable for the first of two values.
func run(ctx context.Context) (any, error) {
	limits := map[string]int{"cpu": 2}
	value := -1
	value, ok := limits["memory"]
	return map[string]any{"value": value, "ok": ok}, nil
}
