package main

import (
	"fmt"
	"strings"
)

func main() {
	var b strings.Builder
	write := b.WriteString
	write("a")
	write("b")
	fmt.Println(b.String())
	up := strings.ToUpper
	fmt.Println(up("x"))
}
