package main

import (
	"fmt"
)

func gen(n int) <-chan int {
	out := make(chan int)
	go func() {
		for i := 1; i <= n; i++ {
			out <- i
		}
		close(out)
	}()
	return out
}

func square(in <-chan int) <-chan int {
	out := make(chan int)
	go func() {
		for v := range in {
			out <- v * v
		}
		close(out)
	}()
	return out
}

func main() {
	sum := 0
	for v := range square(gen(10)) {
		sum += v
	}
	fmt.Println("sum of squares", sum)
}
