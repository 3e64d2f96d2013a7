package main

import (
	"encoding/json"
	"fmt"
)

// No type of the program's own: decoding errors name standard types only, so under auto the
// runner lets the program see them (decode_guard.go).
func main() {
	var counts map[string]int
	err := json.Unmarshal([]byte(`{"a":1,"b":"two","c":3}`), &counts)
	fmt.Println(err, counts["a"], counts["c"])
	var list []bool
	fmt.Println(json.Unmarshal([]byte(`[true, 0]`), &list), list)
}
