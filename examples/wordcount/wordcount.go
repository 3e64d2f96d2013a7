// A data-shaping snippet of the kind runtime auto sends to Yaegi: only the standard library and
// none of the constructs the interpreter gets wrong, so it runs interpreted in milliseconds, with
// the same result compiled Go gives. `kode-gopher exec --runtime auto examples/wordcount` shows
// the runtime that ran and why (runtime_reason); docs/runtimes.md says what auto accepts.
package wordcount

import (
	"context"
	"sort"
	"strings"
)

func run(ctx context.Context) (any, error) {
	text := "the quick brown fox jumps over the lazy dog and the dog sleeps"
	counts := map[string]int{}
	for _, word := range strings.Fields(text) {
		counts[word]++
	}
	words := make([]string, 0, len(counts))
	for word := range counts {
		words = append(words, word)
	}
	sort.Slice(words, func(i, j int) bool {
		if counts[words[i]] != counts[words[j]] {
			return counts[words[i]] > counts[words[j]]
		}
		return words[i] < words[j]
	})
	return map[string]any{"most_frequent": words[:3], "distinct": len(words)}, nil
}
