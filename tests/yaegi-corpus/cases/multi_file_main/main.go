package main

import (
	"fmt"
)

func main() {
	inv := newInventory()
	inv.add("apple", 3)
	inv.add("pear", 2)
	inv.add("apple", 1)
	fmt.Println(inv.report())
}
