package snippet

import (
	"context"
	"fmt"
)

type Level int

func (l Level) String() string { return [...]string{"low", "mid", "high"}[l] }

func run(ctx context.Context) (any, error) {
	return fmt.Sprintf("%v/%v", Level(0), Level(2)), nil
}
