package snippet

import (
	"context"
	"fmt"
	"os"
)

func run(ctx context.Context) (any, error) {
	for i := 0; i < 3; i++ {
		fmt.Println("step", i)
	}
	fmt.Fprintln(os.Stderr, "progress on stderr")
	return "finished", nil
}
