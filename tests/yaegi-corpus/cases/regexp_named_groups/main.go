package main

import (
	"fmt"
	"regexp"
)

func main() {
	re := regexp.MustCompile(`(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})`)
	m := re.FindStringSubmatch("date: 2024-05-17")
	for i, name := range re.SubexpNames() {
		if name != "" {
			fmt.Println(name, m[i])
		}
	}
	fmt.Println(re.NumSubexp(), re.SubexpIndex("month"))
}
