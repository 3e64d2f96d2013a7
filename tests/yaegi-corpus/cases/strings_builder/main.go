package main

import (
	"fmt"
	"strings"
)

func main() {
	var b strings.Builder
	for i := 0; i < 3; i++ {
		fmt.Fprintf(&b, "line %d;", i)
	}
	s := b.String()
	fmt.Println(s, len(s))
	fmt.Println(strings.ToUpper("abc"), strings.Repeat("-", 5), strings.TrimSpace("  x  "))
	fmt.Println(strings.Split("a,b,c", ","), strings.Contains("seafood", "foo"), strings.Index("chicken", "ken"))
	fmt.Println(strings.ReplaceAll("oink oink", "k", "ky"), strings.HasPrefix("golang", "go"))
	r := strings.NewReplacer("<", "&lt;", ">", "&gt;")
	fmt.Println(r.Replace("<b>hi</b>"))
}
