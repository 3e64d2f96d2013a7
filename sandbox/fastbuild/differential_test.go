package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// The differential tests build the same programs with go build and with the fast path, on the
// host, against a lockfile of the standard library alone (the daemon's integration suite does
// the same with the curated packages in a sandbox), and compare what each reports and what the
// binaries do. They need the go command; GOCACHE is the user's, so a warm one makes them quick.

const buildFlagsText = "-trimpath -buildvcs=false -ldflags='-s -w'"

var (
	lockfileOnce sync.Once
	lockfileDir  string
	lockfileData *Data
	lockfileErr  error
)

const testGoMod = "module kode_gopher_user\n\ngo 1.26.0\n"

func preparedLockfile(t *testing.T) (string, *Data) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	lockfileOnce.Do(func() {
		lockfileDir, lockfileErr = os.MkdirTemp("", "fastbuild-lockfile-")
		if lockfileErr != nil {
			return
		}
		files := map[string]string{
			"go.mod":     testGoMod,
			"go.sum":     "",
			"curated.go": "package main\n\nimport _ \"fmt\"\n\nfunc main() {}\n",
		}
		for name, content := range files {
			os.WriteFile(filepath.Join(lockfileDir, name), []byte(content), 0o644)
		}
		words, _ := splitShellWords(buildFlagsText)
		lockfileData, lockfileErr = prepare(lockfileDir, words, "digest")
	})
	if lockfileErr != nil {
		t.Fatalf("prepare: %v", lockfileErr)
	}
	return lockfileDir, lockfileData
}

// writeProgram makes a program folder with the lockfile's go.mod and go.sum and the files given.
func writeProgram(t *testing.T, files map[string]string) string {
	t.Helper()
	lockfile, _ := preparedLockfile(t)
	dir := t.TempDir()
	for _, name := range []string{"go.mod", "go.sum"} {
		content, _ := os.ReadFile(filepath.Join(lockfile, name))
		os.WriteFile(filepath.Join(dir, name), content, 0o644)
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type buildOutcome struct {
	status int
	stderr string
	run    string // the binary's stdout, stderr and exit status, addresses masked
}

var hexAddress = regexp.MustCompile(`0x[0-9a-f]+`)

func runBinary(t *testing.T, binary string) string {
	cmd := exec.Command(binary)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	status := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		status = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s: %v", binary, err)
	}
	return hexAddress.ReplaceAllString(out.String(), "0x?") + "\nexit " + string(rune('0'+status))
}

func goBuild(t *testing.T, dir string) buildOutcome {
	words, _ := splitShellWords(buildFlagsText)
	binary := filepath.Join(t.TempDir(), "slow", "prog")
	cmd := exec.Command("go", append(append([]string{"build"}, words...), "-o", binary, ".")...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outcome := buildOutcome{}
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatal(err)
		}
		outcome.status = exit.ExitCode()
	}
	outcome.stderr = stderr.String()
	if outcome.status == 0 {
		outcome.run = runBinary(t, binary)
	}
	return outcome
}

func fastBuild(t *testing.T, dir string) (buildOutcome, error) {
	_, data := preparedLockfile(t)
	dataPath := filepath.Join(t.TempDir(), "data")
	if err := writeDataFile(dataPath, data); err != nil {
		t.Fatal(err)
	}
	binary := filepath.Join(t.TempDir(), "fast", "prog")
	var stderr bytes.Buffer
	// The daemon's default build memory limit, so the tools run as they do in a sandbox
	// (tools.go: no DWARF, the collector held off).
	const memoryLimit = 4 << 30
	err := buildProgram(buildRequest{dataPath, data.GoVersion, data.LockfileDigest, dir, binary, memoryLimit}, &stderr)
	outcome := buildOutcome{stderr: stderr.String()}
	var compileFailed *compileError
	switch {
	case err == nil:
		outcome.run = runBinary(t, binary)
	case errors.As(err, &compileFailed):
		outcome.status = exitCompileFailed
	default:
		return outcome, err
	}
	return outcome, nil
}

var sameBothWays = map[string]map[string]string{
	"hello": {"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"},
	"helper packages, nested, with build info and a panic": {
		"main.go": `package main

import (
	"fmt"
	"os"
	"runtime/debug"

	"kode_gopher_user/greet"
	"kode_gopher_user/greet/words"
)

func main() {
	fmt.Println(greet.Hello("gopher"), words.Count)
	info, _ := debug.ReadBuildInfo()
	fmt.Println(info)
	if len(os.Args) > 5 {
		return
	}
	panic(greet.Hello("panic"))
}
`,
		"greet/greet.go":       "package greet\n\nimport \"kode_gopher_user/greet/words\"\n\nfunc Hello(name string) string { return words.Hello + \", \" + name }\n",
		"greet/greet_test.go":  "package greet\n\nimport \"testing\"\n\nfunc TestNothing(t *testing.T) {}\n",
		"greet/words/words.go": "package words\n\nconst Hello = \"hello\"\n\nvar Count = len(Hello)\n",
		"_ignored.go":          "this is not Go",
		"notes.txt":            "data files are fine",
	},
	// The compiler writes no DWARF on the fast path (tools.go): the file:line of every frame,
	// inlined ones and runtime.Caller's included, must still be go build's.
	"a panic deep in a helper, with inlined frames and runtime.Caller": {
		"main.go": `package main

import (
	"fmt"
	"runtime"

	"kode_gopher_user/deep"
)

func main() {
	_, file, line, _ := runtime.Caller(0)
	fmt.Println(file, line)
	fmt.Println(deep.Where())
	deep.Outer(3)
}
`,
		"deep/deep.go": `package deep

import (
	"fmt"
	"runtime"
)

func Where() string {
	_, file, line, _ := runtime.Caller(0)
	return fmt.Sprint(file, ":", line)
}

func inlined(n int) int { return 10 / n }

func Outer(n int) int {
	if n == 0 {
		return inlined(n)
	}
	return Outer(n-1) + 1
}
`,
	},
	"exit status and stderr": {"main.go": "package main\n\nimport \"os\"\n\nfunc main() { os.Stderr.WriteString(\"bad\\n\"); os.Exit(7) }\n"},
	"compile error in main":  {"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(undefinedName)\n\tvar unused int\n}\n"},
	"compile error in a helper, main not compiled": {
		"main.go":      "package main\n\nimport \"kode_gopher_user/util\"\n\nfunc main() { util.Do(); nope() }\n",
		"util/util.go": "package util\n\nimport \"os\"\n\nfunc Do() { return 1 }\n",
	},
	"syntax error": {"main.go": "package main\n\nfunc main() {\n\tx := \n}\n"},
	"a file for this platform": {
		"main.go":      "package main\n\nfunc main() { hi() }\n",
		"hi_linux.go":  "package main\n\nimport \"fmt\"\n\nfunc hi() { fmt.Println(\"linux\") }\n",
		"main_test.go": "package main\n",
	},
}

func TestSameBothWays(t *testing.T) {
	for name, files := range sameBothWays {
		t.Run(name, func(t *testing.T) {
			dir := writeProgram(t, files)
			want := goBuild(t, dir)
			got, err := fastBuild(t, dir)
			if err != nil {
				t.Fatalf("the fast path declined: %v (go build: status %d, %s)", err, want.status, want.stderr)
			}
			if got != want {
				t.Errorf("fast path:\nstatus %d\nstderr %q\nrun %q\ngo build:\nstatus %d\nstderr %q\nrun %q",
					got.status, got.stderr, got.run, want.status, want.stderr, want.run)
			}
		})
	}
}

var declinedPrograms = map[string]struct {
	files  map[string]string
	reason string
}{
	"cgo": {map[string]string{"main.go": "package main\n\nimport \"C\"\n\nfunc main() {}\n"}, "cgo"},
	"embed": {map[string]string{
		"main.go":  "package main\n\nimport _ \"embed\"\n\n//go:embed data.txt\nvar data string\n\nfunc main() { println(data) }\n",
		"data.txt": "x",
	}, "embeds"},
	"a build constraint excludes a file": {map[string]string{
		"main.go":  "package main\n\nfunc main() {}\n",
		"extra.go": "//go:build ignore\n\npackage main\n",
	}, "build constraints"},
	"a file for another platform": {map[string]string{
		"main.go":       "package main\n\nfunc main() {}\n",
		"hi_windows.go": "package main\n",
	}, "build constraints"},
	"assembly": {map[string]string{"main.go": "package main\n\nfunc main() {}\n", "a_amd64.s": "\n"}, "assembly"},
	"go:debug": {map[string]string{"main.go": "//go:debug panicnil=1\npackage main\n\nfunc main() {}\n"}, "//go:debug"},
	"an import outside the prebuilt packages": {map[string]string{
		"main.go": "package main\n\nimport _ \"example.com/not/here\"\n\nfunc main() {}\n",
	}, "not among the prebuilt"},
	"an internal package": {map[string]string{"main.go": "package main\n\nimport _ \"internal/abi\"\n\nfunc main() {}\n"}, "does not allow"},
	"a missing local package": {map[string]string{
		"main.go": "package main\n\nimport _ \"kode_gopher_user/gone\"\n\nfunc main() {}\n",
	}, "kode_gopher_user/gone"},
	"an import cycle": {map[string]string{
		"main.go": "package main\n\nimport _ \"kode_gopher_user/a\"\n\nfunc main() {}\n",
		"a/a.go":  "package a\n\nimport _ \"kode_gopher_user/b\"\n",
		"b/b.go":  "package b\n\nimport _ \"kode_gopher_user/a\"\n",
	}, "cycle"},
	"a workspace":    {map[string]string{"main.go": "package main\n\nfunc main() {}\n", "go.work": "go 1.26\n"}, "go.work"},
	"another go.mod": {map[string]string{"main.go": "package main\n\nfunc main() {}\n", "go.mod": "module other\n\ngo 1.26.0\n"}, "go.mod"},
	// go build reports it from the linker; the fast path leaves every link failure to go build.
	"no func main":       {map[string]string{"main.go": "package main\n\nfunc helper() {}\n"}, "linker failed"},
	"not a main package": {map[string]string{"lib.go": "package lib\n"}, "not main"},
}

func TestDeclined(t *testing.T) {
	for name, c := range declinedPrograms {
		t.Run(name, func(t *testing.T) {
			dir := writeProgram(t, c.files)
			_, err := fastBuild(t, dir)
			var d *declined
			if !errors.As(err, &d) {
				t.Fatalf("want a decline, got %v", err)
			}
			if !strings.Contains(d.reason, c.reason) {
				t.Errorf("reason %q does not say %q", d.reason, c.reason)
			}
		})
	}
}

func TestDataForAnotherToolchainOrLockfileIsDeclined(t *testing.T) {
	_, data := preparedLockfile(t)
	dataPath := filepath.Join(t.TempDir(), "data")
	if err := writeDataFile(dataPath, data); err != nil {
		t.Fatal(err)
	}
	dir := writeProgram(t, sameBothWays["hello"])
	for _, c := range []struct{ goVersion, digest string }{{"go1.99.0", data.LockfileDigest}, {data.GoVersion, "other"}} {
		err := buildProgram(buildRequest{dataPath, c.goVersion, c.digest, dir, filepath.Join(t.TempDir(), "prog"), 0}, &bytes.Buffer{})
		var d *declined
		if !errors.As(err, &d) || !strings.Contains(d.reason, "precomputed data is for") {
			t.Errorf("%s / %s: %v", c.goVersion, c.digest, err)
		}
	}
	err := buildProgram(buildRequest{filepath.Join(t.TempDir(), "missing"), data.GoVersion, data.LockfileDigest, dir, filepath.Join(t.TempDir(), "prog"), 0}, &bytes.Buffer{})
	var d *declined
	if !errors.As(err, &d) || !strings.Contains(d.reason, "no precomputed data") {
		t.Errorf("missing data: %v", err)
	}
}
