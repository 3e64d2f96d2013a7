package main

import (
	"fmt"
	"sort"
)

type person struct {
	Name string
	Age  int
}

func main() {
	people := []person{{"Alice", 31}, {"Bob", 25}, {"Carol", 31}, {"Dan", 19}}
	sort.Slice(people, func(i, j int) bool {
		if people[i].Age != people[j].Age {
			return people[i].Age > people[j].Age
		}
		return people[i].Name < people[j].Name
	})
	for _, p := range people {
		fmt.Println(p.Name, p.Age)
	}
	ints := []int{5, 2, 8, 1}
	sort.Ints(ints)
	fmt.Println(ints, sort.SearchInts(ints, 5))
}
