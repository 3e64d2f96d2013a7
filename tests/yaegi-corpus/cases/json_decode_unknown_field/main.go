package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

type Config struct {
	Host string `json:"host"`
	Port int    `json:"port"`
}

func main() {
	dec := json.NewDecoder(strings.NewReader(`{"host":"a","port":1,"debug":true}`))
	dec.DisallowUnknownFields()
	var c Config
	err := dec.Decode(&c)
	fmt.Println(err, c.Host, c.Port)
}
