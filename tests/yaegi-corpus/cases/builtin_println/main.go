package main

import "fmt"

func main() {
	fmt.Println("to stdout")
	println("debug line", 42)
	print("no newline\n")
}
