package main

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

func main() {
	s := "héllo, 世界"
	fmt.Println(len(s), utf8.RuneCountInString(s))
	for i, r := range s {
		if r > 127 {
			fmt.Println(i, string(r), r)
		}
	}
	rs := []rune(s)
	fmt.Println(string(rs[7:]), unicode.IsUpper('A'), strings.ToTitle("ß"))
}
