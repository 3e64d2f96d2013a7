package main

import (
	"fmt"
	"time"
)

func main() {
	d, err := time.ParseDuration("1h15m30.5s")
	fmt.Println(d, err, d.Minutes(), d.Round(time.Minute))
	fmt.Println(time.Duration(1500)*time.Millisecond, 3*time.Second+250*time.Millisecond)
	t, err := time.Parse("2006-01-02 15:04", "2023-07-04 09:30")
	fmt.Println(t, err)
	_, err = time.Parse(time.RFC3339, "not a time")
	fmt.Println(err != nil)
}
