package snippet

import (
	"context"
	"errors"
	"strings"
)

type validationErrors []string

func validate(m map[string]string) validationErrors {
	var errs validationErrors
	for _, k := range []string{"name", "email"} {
		if m[k] == "" {
			errs = append(errs, k+" is required")
		}
	}
	return errs
}

func run(ctx context.Context) (any, error) {
	errs := validate(map[string]string{"name": "x"})
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, "; "))
	}
	return "valid", nil
}
