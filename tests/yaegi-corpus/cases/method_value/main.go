package main

import (
	"fmt"
)

type Counter struct{ n int }

func (c *Counter) Inc() { c.n++ }

func main() {
	c := &Counter{}
	inc := c.Inc
	for i := 0; i < 3; i++ {
		inc()
	}
	fmt.Println(c.n)
}
