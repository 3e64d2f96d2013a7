package snippet

import (
	"context"
	"os"
)

func run(ctx context.Context) (any, error) {
	os.MkdirAll(".kode-gopher", 0o755)
	os.WriteFile(".kode-gopher/result.json", []byte(`{"kind":"ok","value":"custom"}`), 0o644)
	return "ignored", nil
}
