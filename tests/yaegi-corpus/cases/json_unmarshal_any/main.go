package main

import (
	"encoding/json"
	"fmt"
	"sort"
)

func main() {
	var v map[string]any
	json.Unmarshal([]byte(`{"a":1,"b":"two","c":[1,2],"d":{"e":null},"f":true}`), &v)
	keys := make([]string, 0)
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch x := v[k].(type) {
		case float64:
			fmt.Println(k, "number", x)
		case string:
			fmt.Println(k, "string", x)
		case []any:
			fmt.Println(k, "array", len(x))
		case map[string]any:
			fmt.Println(k, "object", len(x))
		case bool:
			fmt.Println(k, "bool", x)
		}
	}
}
