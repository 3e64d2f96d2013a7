package snippet

import (
	"context"
	"sort"
)

type sale struct {
	Region string
	Amount float64
}

type summary struct {
	Region string  `json:"region"`
	Total  float64 `json:"total"`
	Count  int     `json:"count"`
	Avg    float64 `json:"avg"`
}

func run(ctx context.Context) (any, error) {
	sales := []sale{{"eu", 10}, {"us", 20}, {"eu", 5}, {"apac", 7.5}, {"us", 1}}
	by := map[string]*summary{}
	for _, s := range sales {
		sm, ok := by[s.Region]
		if !ok {
			sm = &summary{Region: s.Region}
			by[s.Region] = sm
		}
		sm.Total += s.Amount
		sm.Count++
	}
	out := make([]summary, 0, len(by))
	for _, sm := range by {
		sm.Avg = sm.Total / float64(sm.Count)
		out = append(out, *sm)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Total > out[j].Total })
	return out, nil
}
