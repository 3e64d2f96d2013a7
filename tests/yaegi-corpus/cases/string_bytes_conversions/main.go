package main

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

func main() {
	s := "Hello"
	b := []byte(s)
	b[0] = 'J'
	fmt.Println(s, string(b), b[1], s[1], string(s[1]), len(s[1:3]))
	var sb []string
	for i := 0; i < 3; i++ {
		sb = append(sb, strconv.Itoa(i)+strings.Repeat("*", i))
	}
	fmt.Println(strings.Join(sb, "|"), strings.EqualFold("Go", "GO"), strings.Count("cheese", "e"))
	fmt.Println(bytes.Equal([]byte("a"), []byte("a")), strings.Fields(" a  b "), strings.TrimLeft("xxhixx", "x"))
}
