package snippet

import (
	"context"
)

func run(ctx context.Context) (any, error) {
	return struct {
		Raw  []byte `json:"raw"`
		Size int    `json:"size"`
	}{[]byte("hello"), 5}, nil
}
