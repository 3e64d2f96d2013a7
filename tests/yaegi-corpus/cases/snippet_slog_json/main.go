package snippet

import (
	"bytes"
	"context"
	"log/slog"
)

func run(ctx context.Context) (any, error) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	logger.Info("processed", "items", 3, "ok", true)
	return buf.String(), nil
}
