package main

import (
	"fmt"
)

type ValidationError struct {
	Field string
	Msg   string
}

func (v ValidationError) Error() string { return v.Field + ": " + v.Msg }

func validate(age int) error {
	if age < 0 {
		return ValidationError{"age", "must be positive"}
	}
	return nil
}

func main() {
	if err := validate(-1); err != nil {
		fmt.Println("error:", err)
		fmt.Printf("%v | %s\n", err, err)
	}
}
