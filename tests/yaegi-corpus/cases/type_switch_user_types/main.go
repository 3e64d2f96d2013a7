package main

import (
	"fmt"
	"strconv"
)

type Cat struct{ Name string }
type Fish struct{ Fins int }

func describe(v any) string {
	switch x := v.(type) {
	case int:
		return "int " + strconv.Itoa(x)
	case string:
		return "string " + x
	case Cat:
		return "cat " + x.Name
	case *Fish:
		return "fish with fins " + strconv.Itoa(x.Fins)
	case nil:
		return "nil"
	default:
		return "other"
	}
}

func main() {
	for _, v := range []any{1, "a", Cat{"Tom"}, &Fish{3}, nil, 2.5} {
		fmt.Println(describe(v))
	}
	var a any = Cat{"Kit"}
	c, ok := a.(Cat)
	fmt.Println(c.Name, ok)
	_, ok = a.(*Fish)
	fmt.Println(ok)
}
