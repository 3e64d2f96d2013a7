package snippet

import (
	"context"
	"fmt"
	"os"
)

func run(ctx context.Context) (any, error) {
	fmt.Println("leaving early")
	os.Exit(4)
	return nil, nil
}
