package snippet

import (
	"context"
)

type acc struct{ total int }

func (a *acc) add(n int) { a.total += n }

func run(ctx context.Context) (any, error) {
	a := &acc{}
	f := a.add
	for _, n := range []int{1, 2, 3} {
		f(n)
	}
	return a.total, nil
}
