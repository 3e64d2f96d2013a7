package main

import (
	"fmt"
)

func main() {
	ch := make(chan int)
	close(ch)
	defer func() {
		fmt.Println("recovered:", recover())
	}()
	close(ch)
}
