package snippet

import (
	"context"
)

type record struct {
	Name   string `json:"name"`
	secret string
	Count  int
	hidden int `json:"hidden"`
}

func run(ctx context.Context) (any, error) {
	return []record{{"a", "s", 1, 2}, {"b", "t", 3, 4}}, nil
}
