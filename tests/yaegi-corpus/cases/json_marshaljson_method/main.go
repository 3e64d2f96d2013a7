package main

import (
	"encoding/json"
	"fmt"
)

type Celsius float64

func (c Celsius) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf(`"%.1fC"`, float64(c))), nil
}

type Reading struct {
	Temp Celsius `json:"temp"`
}

func main() {
	b, _ := json.Marshal(Reading{Temp: 21.5})
	fmt.Println(string(b))
}
