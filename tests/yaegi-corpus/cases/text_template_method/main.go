package main

import (
	"fmt"
	"os"
	"text/template"
)

type User struct{ First, Last string }

func (u User) Full() string { return u.First + " " + u.Last }

func main() {
	t := template.Must(template.New("u").Parse("Hi {{.Full}}\n"))
	if err := t.Execute(os.Stdout, User{"Ada", "Lovelace"}); err != nil {
		fmt.Println("error:", err)
	}
}
