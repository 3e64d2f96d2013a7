package snippet

import (
	"context"
)

type conf struct{ Name string }

func run(ctx context.Context) (any, error) {
	var c *conf
	return c.Name, nil
}
