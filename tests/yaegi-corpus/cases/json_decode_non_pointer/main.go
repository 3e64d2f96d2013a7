package main

import (
	"encoding/json"
	"fmt"
)

type Config struct {
	Port int `json:"port"`
}

func main() {
	var c Config
	err := json.Unmarshal([]byte(`{"port":1}`), c)
	fmt.Println(err)
	var p *Config
	fmt.Println(json.Unmarshal([]byte(`{"port":1}`), p))
}
