package main

import (
	"fmt"
	"os"
	"strings"
	"text/template"
)

func main() {
	tmpl := template.Must(template.New("t").Funcs(template.FuncMap{"upper": strings.ToUpper}).Parse(
		"Hello {{.name | upper}}!\n{{range $i, $x := .items}}{{$i}}={{$x}} {{end}}\n{{if .admin}}admin{{else}}user{{end}}\n"))
	data := map[string]any{"name": "gopher", "items": []string{"a", "b", "c"}, "admin": false}
	if err := tmpl.Execute(os.Stdout, data); err != nil {
		fmt.Println(err)
	}
}
