package snippet

import (
	"context"
	"net/url"
)

func run(ctx context.Context) (any, error) {
	u, err := url.Parse("https://user@example.com:8443/a/b?q=go&lang=en#frag")
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set("page", "2")
	return map[string]any{"host": u.Hostname(), "port": u.Port(), "path": u.Path, "query": q.Encode(), "user": u.User.Username(), "frag": u.Fragment}, nil
}
