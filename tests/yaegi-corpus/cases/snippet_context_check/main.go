package snippet

import (
	"context"
)

func run(ctx context.Context) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	_, hasDeadline := ctx.Deadline()
	return map[string]bool{"live": ctx.Err() == nil, "deadline": hasDeadline}, nil
}
