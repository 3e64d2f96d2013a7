package textx

import "strings"

func Slug(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), "-")) }
