package main

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

func main() {
	input := "alpha 1\nbeta 2\n\ngamma 3\n"
	sc := bufio.NewScanner(strings.NewReader(input))
	total := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		var name string
		var n int
		fmt.Sscanf(line, "%s %d", &name, &n)
		total += n
		fmt.Println(name)
	}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	w.WriteString("buffered")
	w.Flush()
	fmt.Println(total, buf.String(), buf.Len())
}
