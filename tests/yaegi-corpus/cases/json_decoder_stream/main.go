package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	dec := json.NewDecoder(strings.NewReader(`{"n":1} {"n":2} {"n":3}`))
	sum := 0.0
	for {
		var m map[string]float64
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			fmt.Println(err)
			return
		}
		sum += m["n"]
	}
	fmt.Println("sum", sum)
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	enc.Encode(map[string][]int{"xs": {1, 2}})
}
