package main

import "fmt"

// A select that receives into variables declared before it.
func main() {
	ch := make(chan int, 1)
	ch <- 7
	var v int
	var ok bool
	select {
	case v = <-ch:
	}
	fmt.Println(v)
	close(ch)
	select {
	case v, ok = <-ch:
	}
	fmt.Println(v, ok)
}
