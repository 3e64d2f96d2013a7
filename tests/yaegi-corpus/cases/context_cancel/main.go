package main

import (
	"context"
	"errors"
	"fmt"
	"time"
)

func worker(ctx context.Context, out chan<- int) {
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			close(out)
			return
		case out <- i:
		}
	}
}

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan int)
	go worker(ctx, out)
	sum := 0
	for v := range out {
		sum += v
		if v == 9 {
			cancel()
			break
		}
	}
	fmt.Println("sum", sum, ctx.Err())
	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel2()
	<-ctx2.Done()
	fmt.Println(ctx2.Err(), errors.Is(ctx2.Err(), context.DeadlineExceeded))
}
