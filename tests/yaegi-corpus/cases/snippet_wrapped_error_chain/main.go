package snippet

import (
	"context"
	"errors"
	"fmt"
)

var errQuota = errors.New("quota exceeded")

func fetch() error { return fmt.Errorf("fetch page 3: %w", errQuota) }

func run(ctx context.Context) (any, error) {
	if err := fetch(); errors.Is(err, errQuota) {
		return nil, fmt.Errorf("sync aborted: %w", err)
	}
	return "ok", nil
}
