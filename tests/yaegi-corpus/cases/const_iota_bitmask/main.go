package main

import (
	"fmt"
)

type Perm uint8

const (
	Read Perm = 1 << iota
	Write
	Exec
)

const (
	KB = 1 << (10 * (iota + 1))
	MB
	GB
)

func main() {
	p := Read | Exec
	fmt.Println(p&Read != 0, p&Write != 0, p&Exec != 0, uint8(p))
	fmt.Println(KB, MB, GB)
	const big = 1 << 62
	fmt.Println(big / KB)
}
