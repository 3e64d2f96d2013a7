package main

import (
	"fmt"
	"regexp"
)

func main() {
	re := regexp.MustCompile(`(\w+)@(\w+)\.com`)
	text := "contact bob@example.com or alice@test.com today"
	fmt.Println(re.FindAllString(text, -1))
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		fmt.Println(m[1], m[2])
	}
	fmt.Println(re.ReplaceAllString(text, "$1 at $2"))
	fmt.Println(regexp.MustCompile(`^\d{3}-\d{4}$`).MatchString("555-1234"))
	_, err := regexp.Compile(`(unclosed`)
	fmt.Println(err)
}
