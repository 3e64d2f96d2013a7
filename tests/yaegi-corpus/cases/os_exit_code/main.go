package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Println("exiting with 3")
	os.Exit(3)
}
