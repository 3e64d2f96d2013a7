package main

import (
	"encoding/json"
	"errors"
	"fmt"
)

type Config struct {
	Host string `json:"host"`
	Port int    `json:"port"`
}

func main() {
	for _, raw := range []string{`{"host":"a",}`, `{"host":"a"`, ``, `{"port":1}x`, `[1,2`} {
		c := Config{Host: "before"}
		err := json.Unmarshal([]byte(raw), &c)
		var syntax *json.SyntaxError
		fmt.Println(err, errors.As(err, &syntax), c.Host)
		if syntax != nil {
			fmt.Println(" at offset", syntax.Offset)
		}
	}
}
