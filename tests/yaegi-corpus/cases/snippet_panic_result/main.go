package snippet

import (
	"context"
	"fmt"
)

func run(ctx context.Context) (any, error) {
	fmt.Println("working")
	panic("kaboom")
}
