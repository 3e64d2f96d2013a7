package snippet

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

func run(ctx context.Context) (any, error) {
	inventory := map[string]int{"z": 1, "a": 5, "m": 3}
	keys := make([]string, 0, len(inventory))
	for k := range inventory {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var lines []string
	for _, k := range keys {
		lines = append(lines, fmt.Sprintf("%s=%d", k, inventory[k]))
	}
	fmt.Println(strings.Join(lines, ";"))
	return keys, nil
}
