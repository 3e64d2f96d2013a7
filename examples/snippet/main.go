// A snippet: any package name but main, and one func run. kode-gopher supplies main, calls run
// with a context, and returns the value as JSON in the result ({"kind":"ok","value":...}).
package demo

import (
	"context"
	"runtime"
	"sort"
	"strings"
)

func run(ctx context.Context) (any, error) {
	words := strings.Fields("the quick brown fox jumps over the lazy dog")
	sort.Strings(words)
	return map[string]any{
		"sorted": words,
		"count":  len(words),
		"go":     runtime.Version(),
	}, nil
}
