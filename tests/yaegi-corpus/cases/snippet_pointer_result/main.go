package snippet

import (
	"context"
	"time"
)

type Status struct {
	Healthy bool              `json:"healthy"`
	Checks  map[string]string `json:"checks"`
	Since   *time.Time        `json:"since,omitempty"`
}

func run(ctx context.Context) (any, error) {
	return &Status{Healthy: true, Checks: map[string]string{"db": "ok", "cache": "degraded"}}, nil
}
