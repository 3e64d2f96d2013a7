package main

import (
	"fmt"
)

func main() {
	fmt.Printf("[%5d] [%-5d] [%05d]\n", 42, 42, 42)
	fmt.Printf("[%8.3f] [%-8s] [%q] [%x] [%X] [%o] [%b]\n", 3.14159, "go", "hi", 255, 255, 8, 5)
	fmt.Printf("%e %g %t %c %U %%\n", 123456.789, 0.000012, true, 'G', 'G')
	fmt.Println(fmt.Sprint("a", 1, 2, "b"), fmt.Sprintln("x", 3))
	fmt.Printf("%v %d %s\n", []int{1, 2}, []int{3}, []string{"p", "q"})
	fmt.Printf("%6.2f%%\n", 12.3456)
}
