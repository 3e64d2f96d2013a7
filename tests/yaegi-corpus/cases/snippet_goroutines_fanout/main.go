package snippet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

func run(ctx context.Context) (any, error) {
	inputs := []string{"alpha", "beta", "gamma", "delta"}
	type res struct {
		in  string
		sum string
	}
	ch := make(chan res, len(inputs))
	var wg sync.WaitGroup
	for _, in := range inputs {
		wg.Add(1)
		go func(s string) {
			defer wg.Done()
			h := sha256.Sum256([]byte(s))
			ch <- res{s, hex.EncodeToString(h[:4])}
		}(in)
	}
	wg.Wait()
	close(ch)
	out := map[string]string{}
	for r := range ch {
		out[r.in] = r.sum
	}
	return out, nil
}
