package snippet

import (
	"context"
	"strings"
	"text/template"
)

func run(ctx context.Context) (any, error) {
	t, err := template.New("r").Parse(`{{range .}}- {{.name}} ({{.qty}}){{"\n"}}{{end}}`)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	err = t.Execute(&b, []map[string]any{{"name": "bolts", "qty": 40}, {"name": "nuts", "qty": 12}})
	return b.String(), err
}
