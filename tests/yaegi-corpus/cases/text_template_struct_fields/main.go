package main

import (
	"os"
	"text/template"
)

type Order struct {
	ID    int
	Items []string
	Total float64
}

func main() {
	t := template.Must(template.New("o").Parse("Order #{{.ID}}: {{len .Items}} items, total {{printf \"%.2f\" .Total}}\n"))
	t.Execute(os.Stdout, Order{ID: 7, Items: []string{"x", "y"}, Total: 12.5})
}
