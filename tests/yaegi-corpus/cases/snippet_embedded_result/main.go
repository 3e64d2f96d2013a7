package snippet

import (
	"context"
)

type Meta struct {
	Version int `json:"version"`
}

type Doc struct {
	Meta
	Title string `json:"title"`
}

func run(ctx context.Context) (any, error) {
	return Doc{Meta{2}, "readme"}, nil
}
