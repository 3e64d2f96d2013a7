package main

import (
	"fmt"
	"sort"
	"strings"
)

type byLen []string

func (b byLen) Len() int           { return len(b) }
func (b byLen) Less(i, j int) bool { return len(b[i]) < len(b[j]) }
func (b byLen) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }

func main() {
	words := []string{"banana", "kiwi", "apple", "fig"}
	sort.Stable(byLen(words))
	fmt.Println(strings.Join(words, ","))
}
