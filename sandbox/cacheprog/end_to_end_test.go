package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoBuildThroughLayers runs the real go command: it prewarms a base with a plain
// `GOCACHE=base go build`, then builds the same program with a fresh GOCACHE and this program as
// GOCACHEPROG, and checks that the standard library came from the base, that only new work
// landed in the upper layer, and that the base was not touched.
func TestGoBuildThroughLayers(t *testing.T) {
	goTool, err := exec.LookPath("go") // `go test` puts its own GOROOT/bin first in PATH
	if err != nil {
		t.Fatalf("the end-to-end test needs the go command in PATH: %v", err)
	}
	root := t.TempDir()
	app, base, upper := filepath.Join(root, "app"), filepath.Join(root, "base"), filepath.Join(root, "upper")
	cacheprog := filepath.Join(root, "kode-gopher-cacheprog")
	goCommand(t, goTool, ".", "", "", "build", "-trimpath", "-buildvcs=false", "-o", cacheprog, ".")

	writeTestFile(t, filepath.Join(app, "go.mod"), "module example.com/hello\n\ngo 1.24\n")
	writeTestFile(t, filepath.Join(app, "main.go"), `package main

import (
	"encoding/json"
	"fmt"
)

func main() {
	out, _ := json.Marshal(map[string]string{"hello": "gopher"})
	fmt.Println(string(out))
}
`)
	goCommand(t, goTool, app, base, "", "build", "-trimpath", "-o", filepath.Join(root, "prewarmed"), ".")
	requireOutput(t, filepath.Join(root, "prewarmed"), `{"hello":"gopher"}`)
	baseOutputs := countFiles(t, base, "-d")
	makeReadOnly(t, base)
	baseBefore := snapshotTree(t, base)

	gocacheprog := "'" + cacheprog + "' -base '" + base + "' -upper '" + upper + "'"
	fresh := filepath.Join(root, "fresh-gocache")
	goCommand(t, goTool, app, fresh, gocacheprog, "build", "-trimpath", "-o", filepath.Join(root, "layered"), ".")
	requireOutput(t, filepath.Join(root, "layered"), `{"hello":"gopher"}`)
	requireUnchanged(t, "base layer", baseBefore, snapshotTree(t, base))
	upperOutputs := countFiles(t, upper, "-d")
	t.Logf("base holds %d output files; the layered build put %d into the upper layer", baseOutputs, upperOutputs)
	if upperOutputs*10 > baseOutputs {
		t.Fatalf("upper layer received %d output files, base holds %d; the base should have served nearly all", upperOutputs, baseOutputs)
	}
	if n := countFiles(t, fresh, "-a") + countFiles(t, fresh, "-d"); n != 0 {
		t.Fatalf("the go command's own GOCACHE holds %d entries; GOCACHEPROG should have stored everything", n)
	}

	// A new package is built once and lands in the upper layer only.
	upperBefore := snapshotTree(t, upper)
	writeTestFile(t, filepath.Join(app, "greet", "greet.go"), `package greet

import "strings"

func Shout(name string) string { return strings.ToUpper(name) + "!" }
`)
	writeTestFile(t, filepath.Join(app, "main.go"), `package main

import (
	"encoding/json"
	"fmt"

	"example.com/hello/greet"
)

func main() {
	out, _ := json.Marshal(map[string]string{"hello": greet.Shout("gopher")})
	fmt.Println(string(out))
}
`)
	goCommand(t, goTool, app, fresh, gocacheprog, "build", "-trimpath", "-o", filepath.Join(root, "layered2"), ".")
	requireOutput(t, filepath.Join(root, "layered2"), `{"hello":"GOPHER!"}`)
	requireUnchanged(t, "base layer", baseBefore, snapshotTree(t, base))
	upperAfter := snapshotTree(t, upper)
	for path, desc := range upperBefore {
		if info, err := os.Stat(path); err == nil && info.IsDir() {
			continue // a directory's mtime changes when files are added
		}
		if upperAfter[path] != desc {
			t.Errorf("upper layer file %s changed: %s -> %s", path, desc, upperAfter[path])
		}
	}
	if added := len(upperAfter) - len(upperBefore); added < 2 {
		t.Fatalf("rebuilding with a new package added %d files to the upper layer, want at least its entry and output", added)
	}
	if n := countFiles(t, fresh, "-a") + countFiles(t, fresh, "-d"); n != 0 {
		t.Fatalf("the go command's own GOCACHE holds %d entries after the rebuild", n)
	}
}

// goCommand runs the go command in dir with a controlled environment: no cgo, no network, the
// local toolchain, the given GOCACHE ("" = the caller's, warm from building this test) and
// GOCACHEPROG ("" = none).
func goCommand(t *testing.T, goTool, dir, gocache, gocacheprog string, args ...string) {
	t.Helper()
	cmd := exec.Command(goTool, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GO") && !strings.HasPrefix(kv, "CGO_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if gocache == "" {
		gocache = os.Getenv("GOCACHE")
	}
	if gocache != "" {
		cmd.Env = append(cmd.Env, "GOCACHE="+gocache)
	}
	cmd.Env = append(cmd.Env, "GOCACHEPROG="+gocacheprog, "GOENV=off",
		"CGO_ENABLED=0", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOPROXY=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOCACHE=%s GOCACHEPROG=%q go %s: %v\n%s", gocache, gocacheprog, strings.Join(args, " "), err, out)
	}
}

func requireOutput(t *testing.T, program, want string) {
	t.Helper()
	out, err := exec.Command(program).Output()
	if err != nil || strings.TrimSpace(string(out)) != want {
		t.Fatalf("%s printed %q (%v), want %q", program, out, err, want)
	}
}
