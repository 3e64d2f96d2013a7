package main

import (
	"fmt"
)

func risky(n int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("risky(%d): %v", n, r)
		}
	}()
	if n > 2 {
		panic(fmt.Sprintf("n too big: %d", n))
	}
	return nil
}

func main() {
	for i := 1; i <= 4; i++ {
		fmt.Println(i, risky(i))
	}
}
