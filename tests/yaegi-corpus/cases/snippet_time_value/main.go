package snippet

import (
	"context"
	"time"
)

func run(ctx context.Context) (any, error) {
	start := time.Date(2024, 1, 31, 12, 0, 0, 0, time.UTC)
	var days []string
	for i := 0; i < 3; i++ {
		days = append(days, start.AddDate(0, 0, i).Format("Mon Jan 2"))
	}
	return map[string]any{"start": start, "days": days, "deadline": start.Add(36 * time.Hour)}, nil
}
