package main

import (
	"errors"
	"fmt"
)

type NotFoundError struct{ Key string }

func (e *NotFoundError) Error() string { return "not found: " + e.Key }

func lookup(k string) error { return fmt.Errorf("lookup: %w", &NotFoundError{Key: k}) }

func main() {
	err := lookup("user:42")
	var nf *NotFoundError
	if errors.As(err, &nf) {
		fmt.Println("missing key", nf.Key)
	}
	fmt.Println(err)
}
