package main

import (
	"fmt"
	"sync"
)

type cache struct {
	mu   sync.RWMutex
	data map[string]int
	once sync.Once
}

func (c *cache) init() { c.once.Do(func() { c.data = map[string]int{}; fmt.Println("init once") }) }

func (c *cache) Set(k string, v int) {
	c.init()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.data[k] = v
}

func (c *cache) Get(k string) int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.data[k]
}

func main() {
	c := &cache{}
	c.Set("a", 1)
	c.Set("b", 2)
	fmt.Println(c.Get("a") + c.Get("b"))
}
