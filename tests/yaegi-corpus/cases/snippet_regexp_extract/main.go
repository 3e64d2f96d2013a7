package snippet

import (
	"context"
	"regexp"
	"strings"
)

func run(ctx context.Context) (any, error) {
	log := `2024-05-01 ERROR db timeout
2024-05-01 INFO started
2024-05-02 ERROR disk full
2024-05-02 WARN slow query`
	re := regexp.MustCompile(`(?m)^(\S+) (ERROR|WARN) (.+)$`)
	var problems []map[string]string
	for _, m := range re.FindAllStringSubmatch(log, -1) {
		problems = append(problems, map[string]string{"day": m[1], "level": strings.ToLower(m[2]), "msg": m[3]})
	}
	return problems, nil
}
