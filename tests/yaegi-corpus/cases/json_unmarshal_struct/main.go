package main

import (
	"encoding/json"
	"fmt"
)

type Config struct {
	Host    string            `json:"host"`
	Port    int               `json:"port"`
	Debug   bool              `json:"debug"`
	Headers map[string]string `json:"headers"`
	Ratios  []float64         `json:"ratios"`
}

func main() {
	raw := `{"host":"localhost","port":8080,"debug":true,"headers":{"X-A":"1"},"ratios":[0.5,1.5],"extra":1}`
	var c Config
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		fmt.Println("error", err)
		return
	}
	fmt.Println(c.Host, c.Port, c.Debug, c.Headers["X-A"], c.Ratios)
	err := json.Unmarshal([]byte(`{"port":"x"}`), &c)
	fmt.Println(err)
}
