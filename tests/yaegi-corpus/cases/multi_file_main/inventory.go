package main

import (
	"fmt"
	"sort"
	"strings"
)

type inventory struct{ items map[string]int }

func newInventory() *inventory { return &inventory{items: map[string]int{}} }

func (i *inventory) add(name string, n int) { i.items[name] += n }

func (i *inventory) report() string {
	var names []string
	for n := range i.items {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s:%d", n, i.items[n]))
	}
	return strings.Join(parts, " ")
}
