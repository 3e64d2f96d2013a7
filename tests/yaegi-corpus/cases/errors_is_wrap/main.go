package main

import (
	"errors"
	"fmt"
)

var ErrNotFound = errors.New("not found")

func find(key string) error {
	if key != "ok" {
		return fmt.Errorf("find %q: %w", key, ErrNotFound)
	}
	return nil
}

func main() {
	err := find("x")
	fmt.Println(err)
	fmt.Println(errors.Is(err, ErrNotFound), errors.Unwrap(err) == ErrNotFound)
	wrapped := fmt.Errorf("layer 2: %w", err)
	fmt.Println(wrapped, errors.Is(wrapped, ErrNotFound))
	fmt.Println(find("ok") == nil)
}
