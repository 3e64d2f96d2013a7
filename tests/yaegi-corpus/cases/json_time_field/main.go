package main

import (
	"encoding/json"
	"fmt"
	"time"
)

type Event struct {
	Name string    `json:"name"`
	At   time.Time `json:"at"`
	Dur  time.Duration
}

func main() {
	e := Event{Name: "launch", At: time.Date(2024, 3, 15, 10, 30, 0, 0, time.UTC), Dur: 90 * time.Second}
	b, _ := json.Marshal(e)
	fmt.Println(string(b))
	var back Event
	json.Unmarshal(b, &back)
	fmt.Println(back.At.Equal(e.At), back.Dur)
}
