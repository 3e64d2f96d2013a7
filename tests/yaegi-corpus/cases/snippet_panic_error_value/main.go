package snippet

import (
	"context"
	"errors"
)

func run(ctx context.Context) (any, error) {
	panic(errors.New("typed failure"))
}
