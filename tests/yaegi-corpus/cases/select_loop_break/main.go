package main

import (
	"fmt"
)

func main() {
	data := make(chan int)
	quit := make(chan bool)
	go func() {
		for i := 0; i < 3; i++ {
			data <- i
		}
		quit <- true
	}()
	sum := 0
loop:
	for {
		select {
		case v := <-data:
			sum += v
		case <-quit:
			break loop
		}
	}
	fmt.Println("sum", sum)
}
