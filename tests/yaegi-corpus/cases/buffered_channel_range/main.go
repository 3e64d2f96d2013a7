package main

import (
	"fmt"
)

func main() {
	ch := make(chan int, 5)
	for i := 0; i < 5; i++ {
		ch <- i * i
	}
	close(ch)
	fmt.Println(len(ch), cap(ch))
	for v := range ch {
		fmt.Print(v, ",")
	}
	v, ok := <-ch
	fmt.Println(v, ok)
}
