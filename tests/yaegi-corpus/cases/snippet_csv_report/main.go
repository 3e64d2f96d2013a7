package snippet

import (
	"context"
	"encoding/csv"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

const data = `team,points
red,10
blue,7
red,5
green,12
blue,1`

func run(ctx context.Context) (any, error) {
	rows, err := csv.NewReader(strings.NewReader(data)).ReadAll()
	if err != nil {
		return nil, err
	}
	totals := map[string]int{}
	for _, r := range rows[1:] {
		n, err := strconv.Atoi(r[1])
		if err != nil {
			return nil, fmt.Errorf("row %v: %w", r, err)
		}
		totals[r[0]] += n
	}
	type entry struct {
		Team   string `json:"team"`
		Points int    `json:"points"`
	}
	var out []entry
	for t, p := range totals {
		out = append(out, entry{t, p})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Points > out[j].Points })
	return out, nil
}
