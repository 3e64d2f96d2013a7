package snippet

import (
	"context"
)

func groupBy[T any](xs []T, key func(T) string) map[string][]T {
	out := map[string][]T{}
	for _, x := range xs {
		out[key(x)] = append(out[key(x)], x)
	}
	return out
}

func run(ctx context.Context) (any, error) {
	return groupBy([]string{"apple", "avocado", "banana", "blueberry", "cherry"}, func(s string) string { return s[:1] }), nil
}
