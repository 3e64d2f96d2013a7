"""The Go programs the benchmark runs. Each takes a nonce that changes the source (and so the
build) without changing what it does: a different nonce is a one-line edit, the same nonce is an
identical resubmission."""

HELLO = """package main

import "fmt"

// bench nonce {nonce}
func main() {{
	fmt.Println("hello, gopher")
}}
"""

# A wrapped snippet (package other than main, func run): the edited line is the greeting.
EDITED_SNIPPET = """package snippet

import (
	"context"
	"fmt"
	"strings"
)

func run(ctx context.Context) (any, error) {{
	words := []string{{"one", "line", "edited"}}
	greeting := "edit {nonce}"
	fmt.Println(greeting, strings.Join(words, " "))
	return map[string]any{{"greeting": greeting, "words": len(words)}}, nil
}}
"""

# 1 MiB of stdout: 16384 lines of 64 bytes.
MIB_OUTPUT = """package main

import (
	"bufio"
	"os"
	"strings"
)

// bench nonce {nonce}
func main() {{
	w := bufio.NewWriterSize(os.Stdout, 1<<16)
	line := strings.Repeat("g", 63) + "\\n"
	for i := 0; i < 16384; i++ {{
		w.WriteString(line)
	}}
	w.Flush()
}}
"""

# Lists the objects of a bucket on fake-gcs-server; {emulator} is host:port on loopback.
STORAGE = """package main

import (
	"context"
	"fmt"
	"os"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
)

// bench nonce {nonce}
func main() {{
	os.Setenv("STORAGE_EMULATOR_HOST", "{emulator}")
	ctx := context.Background()
	client, err := storage.NewClient(ctx)
	if err != nil {{
		panic(err)
	}}
	defer client.Close()
	it := client.Bucket("{bucket}").Objects(ctx, nil)
	n := 0
	for {{
		attrs, err := it.Next()
		if err == iterator.Done {{
			break
		}}
		if err != nil {{
			panic(err)
		}}
		fmt.Println(attrs.Name, attrs.Size)
		n++
	}}
	fmt.Println("objects:", n)
}}
"""
