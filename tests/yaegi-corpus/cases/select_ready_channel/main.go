package main

import (
	"fmt"
	"time"
)

func main() {
	ready := make(chan string, 1)
	ready <- "data"
	select {
	case v := <-ready:
		fmt.Println("got", v)
	case <-time.After(5 * time.Second):
		fmt.Println("timeout")
	}
	done := make(chan struct{})
	close(done)
	select {
	case <-done:
		fmt.Println("closed")
	default:
		fmt.Println("not closed")
	}
}
