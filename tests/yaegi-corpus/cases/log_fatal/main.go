package main

import (
	"fmt"
	"log"
)

func main() {
	fmt.Println("about to fail")
	log.SetFlags(0)
	log.Fatal("fatal: config missing")
}
