package main

import (
	"fmt"
	"strings"
)

type Reader interface{ Read() string }
type Writer interface{ Write(s string) }
type ReadWriter interface {
	Reader
	Writer
}

type buf struct{ data []string }

func (b *buf) Read() string   { return strings.Join(b.data, "") }
func (b *buf) Write(s string) { b.data = append(b.data, s) }

func main() {
	var rw ReadWriter = &buf{}
	rw.Write("x")
	rw.Write("y")
	fmt.Println(rw.Read())
}
