package snippet

import (
	"context"
	"sort"
)

type Row struct {
	Name  string  `json:"name"`
	Score float64 `json:"score"`
	Rank  int     `json:"rank,omitempty"`
}

func run(ctx context.Context) (any, error) {
	rows := []Row{{"b", 2.5, 0}, {"a", 9, 0}, {"c", 4, 0}}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Score > rows[j].Score })
	for i := range rows {
		rows[i].Rank = i + 1
	}
	return rows, nil
}
