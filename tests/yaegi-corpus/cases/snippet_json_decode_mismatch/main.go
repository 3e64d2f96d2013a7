package snippet

import (
	"context"
	"encoding/json"
	"fmt"
)

type reading struct {
	Sensor string  `json:"sensor"`
	Value  float64 `json:"value"`
}

func run(ctx context.Context) (any, error) {
	fmt.Println("decoding")
	var rs []reading
	if err := json.Unmarshal([]byte(`[{"sensor":"a","value":1.5},{"sensor":"b","value":"high"}]`), &rs); err != nil {
		return nil, fmt.Errorf("reading input: %w", err)
	}
	return rs, nil
}
