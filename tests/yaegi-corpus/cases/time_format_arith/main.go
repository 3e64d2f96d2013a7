package main

import (
	"fmt"
	"time"
)

func main() {
	t := time.Date(2024, time.February, 28, 23, 15, 0, 0, time.UTC)
	fmt.Println(t.Format(time.RFC3339), t.Weekday(), t.YearDay())
	next := t.Add(2 * time.Hour)
	fmt.Println(next.Format("2006-01-02 15:04"), next.Sub(t), next.After(t))
	fmt.Println(t.AddDate(0, 1, 1).Format(time.DateOnly), t.Truncate(time.Hour).Format(time.Kitchen))
	fmt.Println(t.Unix(), t.Month(), int(t.Month()))
}
