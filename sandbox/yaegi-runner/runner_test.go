package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Tests of the built runner (KG_YAEGI_RUNNER, set by `meson test yaegi-runner`): the contract
// with the plugin and the patches carried in patches/.

func runnerBinary(t *testing.T) string {
	t.Helper()
	runner := os.Getenv("KG_YAEGI_RUNNER")
	if runner == "" {
		t.Skip("KG_YAEGI_RUNNER is set by `meson test yaegi-runner` to the built runner")
	}
	return runner
}

// writeProgram lays out files (path -> source) in a fresh folder.
func writeProgram(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for path, src := range files {
		full := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type runnerRun struct {
	stdout, stderr string
	exitCode       int
	events         []map[string]any
}

func runRunner(t *testing.T, dir string, env []string, args ...string) runnerRun {
	t.Helper()
	cmd := exec.Command(runnerBinary(t), append(args, dir)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := runnerRun{stdout: stdout.String(), stderr: stderr.String()}
	if exitErr, ok := err.(*exec.ExitError); ok {
		r.exitCode = exitErr.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(r.stderr, "\n") {
		for _, prefix := range []string{"kode-gopher-yaegi[tok123] ", "kode-gopher-yaegi: "} {
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				var m map[string]any
				if json.Unmarshal([]byte(rest), &m) == nil {
					r.events = append(r.events, m)
				}
			}
		}
	}
	return r
}

func (r runnerRun) event(name string) map[string]any {
	for _, e := range r.events {
		if e["event"] == name {
			return e
		}
	}
	return nil
}

const wrapperStub = "package main\n" // the runner does the wrapper's work; only its presence matters

func TestPatchNamedResultsStartAtZero(t *testing.T) {
	dir := writeProgram(t, map[string]string{"main.go": `package main

import "fmt"

func f() (n int) { n++; return }

func g(k int) (s []int, err error) { s = append(s, k); return }

func main() {
	for i := 0; i < 3; i++ {
		fmt.Print(f(), " ")
	}
	for i := 0; i < 2; i++ {
		s, _ := g(i)
		fmt.Print(len(s), " ")
	}
	fmt.Println()
}
`})
	r := runRunner(t, dir, nil)
	if r.stdout != "1 1 1 1 1 \n" || r.exitCode != 0 {
		t.Fatalf("named results must start at zero on every call: got %q (exit %d), want \"1 1 1 1 1 \\n\"; stderr %s", r.stdout, r.exitCode, r.stderr)
	}
}

func TestPatchJSONSkipsUnexportedFields(t *testing.T) {
	dir := writeProgram(t, map[string]string{"main.go": `package main

import (
	"encoding/json"
	"fmt"
)

type base struct{ ID int }

type T struct {
	Name   string ` + "`json:\"name\"`" + `
	count  int
	hidden int ` + "`json:\"hidden\"`" + `
}

type E struct{ base }

func main() {
	b, _ := json.Marshal(T{"a", 2, 3})
	e, _ := json.Marshal(E{base{7}})
	fmt.Println(string(b), string(e))
}
`})
	r := runRunner(t, dir, nil)
	if want := `{"name":"a"} {"ID":7}` + "\n"; r.stdout != want {
		t.Fatalf("got %q, want %q (stderr %s)", r.stdout, want, r.stderr)
	}
}

func TestTokenMarksMessagesAndLeavesTheEnvironment(t *testing.T) {
	dir := writeProgram(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"os"
)

func main() { fmt.Printf("token=%q args=%d\n", os.Getenv("KG_YAEGI_TOKEN"), len(os.Args)) }
`})
	r := runRunner(t, dir, []string{"KG_YAEGI_TOKEN=tok123"})
	if r.stdout != "token=\"\" args=1\n" {
		t.Fatalf("the program must not see the token nor the runner's arguments: %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "kode-gopher-yaegi[tok123] {\"event\":\"compiled\"") {
		t.Fatalf("no token-marked compiled message: %q", r.stderr)
	}
}

func TestExitCodes(t *testing.T) {
	for name, c := range map[string]struct {
		body string
		code int
	}{
		"os.Exit":   {`os.Exit(3)`, 3},
		"log.Fatal": {`log.Fatal("x")`, 1},
		"panic":     {`panic("boom")`, 2},
		"return":    {`_ = log.Prefix(); _ = os.Args`, 0},
	} {
		t.Run(name, func(t *testing.T) {
			dir := writeProgram(t, map[string]string{"main.go": "package main\n\nimport (\n\t\"log\"\n\t\"os\"\n)\n\nfunc main() {\n\t_ = os.Args\n\t_ = log.Prefix\n\t" + c.body + "\n}\n"})
			r := runRunner(t, dir, nil)
			if r.exitCode != c.code {
				t.Fatalf("exit %d, want %d (stderr %s)", r.exitCode, c.code, r.stderr)
			}
		})
	}
}

func TestCompileErrorHasDiagnostics(t *testing.T) {
	dir := writeProgram(t, map[string]string{"main.go": "package main\n\nfunc main() {\n\tundefinedThing()\n}\n"})
	r := runRunner(t, dir, nil)
	e := r.event("compile_error")
	if r.exitCode != exitCompileError || e == nil {
		t.Fatalf("want compile_error and exit 2, got exit %d: %s", r.exitCode, r.stderr)
	}
	d := e["diagnostics"].([]any)[0].(map[string]any)
	if d["file"] != "main.go" || d["line"] != float64(4) {
		t.Fatalf("diagnostic should point at main.go:4: %v", d)
	}
	// Under --auto the compiler gives the authoritative diagnostics: declined, exit 86.
	r = runRunner(t, dir, nil, "--auto")
	if r.exitCode != exitDeclined || r.event("declined") == nil {
		t.Fatalf("--auto: want declined and exit 86, got exit %d: %s", r.exitCode, r.stderr)
	}
}

func TestWrappedResultKinds(t *testing.T) {
	for name, c := range map[string]struct {
		body   string
		result string
		code   int
	}{
		"ok":            {`return map[string]int{"a": 1}, nil`, `{"kind":"ok","value":{"a":1}}`, 0},
		"error":         {`return nil, errors.New("nope")`, `{"kind":"error","message":"nope"}`, 1},
		"marshal_error": {`return make(chan int), nil`, `{"kind":"marshal_error","message":"json: unsupported type: chan int","type":"chan int"}`, 1},
	} {
		t.Run(name, func(t *testing.T) {
			dir := writeProgram(t, map[string]string{
				"main.go":       "package main\n\nimport (\n\t\"context\"\n\t\"errors\"\n)\n\nvar _ = errors.New\n\nfunc run(ctx context.Context) (any, error) {\n\t" + c.body + "\n}\n",
				"kg_wrapper.go": wrapperStub,
			})
			r := runRunner(t, dir, nil)
			got, _ := os.ReadFile(filepath.Join(dir, ".kode-gopher", "result.json"))
			if string(got) != c.result || r.exitCode != c.code {
				t.Fatalf("result %s exit %d, want %s exit %d (stderr %s)", got, r.exitCode, c.result, c.code, r.stderr)
			}
		})
	}
}

func TestWrappedPanicHasInterpretedStack(t *testing.T) {
	dir := writeProgram(t, map[string]string{
		"main.go":       "package main\n\nimport \"context\"\n\nfunc boom() { panic(\"kaboom\") }\n\nfunc run(ctx context.Context) (any, error) {\n\tboom()\n\treturn nil, nil\n}\n",
		"kg_wrapper.go": wrapperStub,
	})
	r := runRunner(t, dir, nil)
	var result map[string]string
	data, _ := os.ReadFile(filepath.Join(dir, ".kode-gopher", "result.json"))
	json.Unmarshal(data, &result)
	if result["kind"] != "panic" || result["message"] != "kaboom" || !strings.Contains(result["stack"], "main.boom(...)") || !strings.Contains(result["stack"], "main.go:5") {
		t.Fatalf("want a panic result with the interpreted frames, got %s", data)
	}
	if strings.Contains(r.stderr, "panic: main.") {
		t.Fatalf("a recovered panic must leave stderr alone: %q", r.stderr)
	}
}

func TestHelperPackagesImportedAsUserModule(t *testing.T) {
	dir := writeProgram(t, map[string]string{
		"main.go":        "package main\n\nimport (\n\t\"fmt\"\n\t\"kode_gopher_user/util/text\"\n)\n\nfunc main() { fmt.Println(text.Shout(\"hi\")) }\n",
		"util/text/t.go": "package text\n\nimport \"strings\"\n\nfunc Shout(s string) string { return strings.ToUpper(s) + \"!\" }\n",
	})
	r := runRunner(t, dir, nil)
	if r.stdout != "HI!\n" {
		t.Fatalf("got %q (stderr %s)", r.stdout, r.stderr)
	}
}

// A program importing curated packages runs in kode-gopher-yaegi-cloud (cloud_runner.go), with
// the symbol tables internal/extractsyms generated from the lockfile (patch 0003), the token
// still marking the messages.
func TestCuratedPackagesRunInTheCloudRunner(t *testing.T) {
	dir := writeProgram(t, map[string]string{"main.go": `package main

import (
	"context"
	"fmt"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func main() {
	client, err := storage.NewClient(context.Background(), option.WithoutAuthentication())
	if err != nil {
		panic(err)
	}
	defer client.Close()
	fmt.Println(client.Bucket("b").Object("o").ObjectName(), iterator.Done)
	fmt.Println(metav1.ListOptions{LabelSelector: "app=web"}.LabelSelector)
}
`})
	r := runRunner(t, dir, []string{"KG_YAEGI_TOKEN=tok123"}, "--auto")
	if r.stdout != "o no more items in iterator\napp=web\n" || r.exitCode != 0 {
		t.Fatalf("got %q exit %d; stderr %s", r.stdout, r.exitCode, r.stderr)
	}
	if r.event("accepted") == nil || r.event("compiled") == nil {
		t.Fatalf("want accepted and compiled messages with the token: %s", r.stderr)
	}
}

// No code of the program runs before the runner's `started` line: package initialization of the
// helper packages and of package main comes after it, in Go's order; a program that does not
// compile runs nothing at all; a panic in init ends the run as Go's runtime does.
func TestPackageInitRunsAfterStarted(t *testing.T) {
	helper := "package util\n\nimport \"os\"\n\nvar X = mark(\"util var\")\n\nfunc init() { mark(\"util init\") }\n\nfunc mark(s string) int { os.Stderr.WriteString(\"MARK \" + s + \"\\n\"); return 1 }\n"
	main := "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\n\t\"kode_gopher_user/util\"\n)\n\nvar y = mark(\"main var\")\n\nfunc init() { mark(\"main init\") }\n\nfunc mark(s string) int { os.Stderr.WriteString(\"MARK \" + s + \"\\n\"); return 1 }\n\nfunc main() { fmt.Println(util.X + y) }\n"
	dir := writeProgram(t, map[string]string{"main.go": main, "util/util.go": helper})
	for _, args := range [][]string{nil, {"--auto"}} {
		r := runRunner(t, dir, []string{"KG_YAEGI_TOKEN=tok123"}, args...)
		started := strings.Index(r.stderr, "kode-gopher-yaegi[tok123] {\"event\":\"started\"}\n")
		if r.exitCode != 0 || r.stdout != "2\n" || started < 0 {
			t.Fatalf("%v: exit %d, stdout %q, stderr %s", args, r.exitCode, r.stdout, r.stderr)
		}
		if want := "MARK util var\nMARK util init\nMARK main var\nMARK main init\n"; r.stderr[started:][len("kode-gopher-yaegi[tok123] {\"event\":\"started\"}\n"):] != want {
			t.Fatalf("%v: after started, want %q; stderr %s", args, want, r.stderr)
		}
	}

	broken := writeProgram(t, map[string]string{"main.go": strings.Replace(main, "func main() {", "func main() { undefinedThing()", 1), "util/util.go": helper})
	r := runRunner(t, broken, nil)
	if r.exitCode != exitCompileError || strings.Contains(r.stderr, "MARK") || r.event("started") != nil {
		t.Fatalf("a program that does not compile must run nothing: exit %d, stderr %s", r.exitCode, r.stderr)
	}

	panics := writeProgram(t, map[string]string{"main.go": "package main\n\nfunc init() { panic(\"in init\") }\n\nfunc main() {}\n"})
	r = runRunner(t, panics, nil)
	if r.exitCode != 2 || !strings.Contains(r.stderr, "panic: in init") || r.event("started") == nil {
		t.Fatalf("a panic in init is the program's, after started: exit %d, stderr %s", r.exitCode, r.stderr)
	}
}

// The token is gone from the environment block /proc/self/environ shows, not only from Go's
// copy of the environment.
func TestTokenNotInProcEnviron(t *testing.T) {
	dir := writeProgram(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"os"
	"strings"
)

func main() {
	data, err := os.ReadFile("/proc/self/environ")
	fmt.Println(err == nil, strings.Contains(string(data), "tok123"), strings.Contains(string(data), "KEEP_ME=1"))
}
`})
	r := runRunner(t, dir, []string{"KG_YAEGI_TOKEN=tok123", "KEEP_ME=1"})
	if r.stdout != "true false true\n" {
		t.Fatalf("want the environ block readable, without the token, other variables kept: %q (stderr %s)", r.stdout, r.stderr)
	}
}

// A prestarted runner (call_on_stdin.go): the call's environment and arguments come on stdin.
func TestCallOnStdinTakesEnvironmentAndArguments(t *testing.T) {
	dir := writeProgram(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	in, err := io.ReadAll(os.Stdin)
	environ, _ := os.ReadFile("/proc/self/environ")
	fmt.Printf("keep=%q token=%q args=%d stdin=%q/%v environ-has-token=%v started-with=%v\n",
		os.Getenv("KEEP_ME"), os.Getenv("KG_YAEGI_TOKEN"), len(os.Args), in, err,
		strings.Contains(string(environ), "tok123"), strings.Contains(string(environ), "PRESTART_ONLY=1"))
}
`})
	run := func(stdin string) runnerRun {
		return runPrestarted(t, runnerBinary(t), dir, stdin, "--call-on-stdin")
	}
	r := run("KG_YAEGI_TOKEN=tok123\x00KEEP_ME=a=b\x00PATH=" + os.Getenv("PATH") + "\x00\x00--auto\x00" + dir + "\x00")
	want := "keep=\"a=b\" token=\"\" args=1 stdin=\"\"/<nil> environ-has-token=false started-with=true\n"
	if r.stdout != want || r.exitCode != 0 {
		t.Fatalf("want %q (exit 0), got %q exit %d; stderr %s", want, r.stdout, r.exitCode, r.stderr)
	}
	if !strings.Contains(r.stderr, "kode-gopher-yaegi[tok123] {\"event\":\"accepted\"") {
		t.Fatalf("the call's token and --auto must be used: %q", r.stderr)
	}
	for stdin, message := range map[string]string{
		"":                "no call on stdin",
		"A=1\x00\x00/app": "does not end with a NUL",
		"A=1\x00/app\x00": "is not NAME=value",
		"A=1\x00B=2\x00":  "no end of its environment",
	} {
		r := run(stdin)
		if r.exitCode != exitInternal || !strings.Contains(r.stderr, message) {
			t.Errorf("stdin %q: want exit %d and %q, got exit %d, stderr %q", stdin, exitInternal, message, r.exitCode, r.stderr)
		}
	}
}

// A static-check decline names the declaration it points at, verbatim, for the daemon's
// per-session memory of declines (decline_evidence.go); a helper package's file keeps its path.
func TestDeclineCarriesTheDeclarationItPointsAt(t *testing.T) {
	loop := "func Count() int {\n\tn := 0\n\tfor i := 0; i < 50_000_000; i++ {\n\t\tn += i & 1\n\t}\n\treturn n\n}"
	dir := writeProgram(t, map[string]string{
		"main.go":   "package main\n\nimport (\n\t\"fmt\"\n\n\t\"kode_gopher_user/work\"\n)\n\n// a comment the next edit changes\nfunc main() { fmt.Println(work.Count()) }\n",
		"work/w.go": "package work\n\n" + loop + "\n",
		"go.mod":    "module kode_gopher_user\n\ngo 1.22\n",
	})
	r := runRunner(t, dir, nil, "--auto")
	declined := r.event("declined")
	if r.exitCode != 86 || declined == nil {
		t.Fatalf("want declined (86), got %d: %s", r.exitCode, r.stderr)
	}
	evidence, _ := declined["evidence"].(map[string]any)
	if evidence["file"] != "work/w.go" || evidence["text"] != loop {
		t.Fatalf("want the loop's declaration in work/w.go as evidence, got %#v (reason %v)", evidence, declined["reason"])
	}
	// A decline from the interpreter's compile phase has no declaration to point at.
	dir = writeProgram(t, map[string]string{"main.go": "package main\n\nfunc main() { var x int = \"s\"; _ = x }\n"})
	r = runRunner(t, dir, nil, "--auto")
	if d := r.event("declined"); d == nil || d["evidence"] != nil {
		t.Fatalf("want a decline without evidence, got %s", r.stderr)
	}
}

// runPrestarted runs binary as the sandbox server runs a prestarted runner: the server's
// environment only (PRESTART_ONLY=1 and serverEnv here), the call on stdin.
func runPrestarted(t *testing.T, binary, dir, stdin string, args ...string) runnerRun {
	return runPrestartedWith(t, nil, binary, dir, stdin, args...)
}

func runPrestartedWith(t *testing.T, serverEnv []string, binary, dir, stdin string, args ...string) runnerRun {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PRESTART_ONLY=1"}, serverEnv...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := runnerRun{stdout: stdout.String(), stderr: stderr.String()}
	if exitErr, ok := err.(*exec.ExitError); ok {
		r.exitCode = exitErr.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// The prestarted cloud runner (the plugin starts it with GOGC=off: plugins/yaegi/
// runner_command.hpp) runs curated and plain programs alike, and its collector then follows
// the call's GOGC (unset: 100), as a Go process started with the call's environment would.
func TestPrestartedCloudRunnerTakesTheCallsGOGC(t *testing.T) {
	const body = `p, err := os.Readlink("/proc/self/exe"); fmt.Println(err == nil, strings.HasSuffix(p, "-cloud"), debug.SetGCPercent(100))`
	plain := writeProgram(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"
)

func main() { ` + body + ` }
`})
	curated := writeProgram(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"google.golang.org/api/iterator"
)

func main() { ` + body + `; fmt.Println(iterator.Done) }
`})
	call := func(dir string) string { return "KG_YAEGI_TOKEN=tok123\x00\x00" + dir + "\x00" }
	cloud := filepath.Join(filepath.Dir(runnerBinary(t)), cloudRunnerName)
	for _, c := range []struct{ dir, gogc, want string }{
		{plain, "", "true true 100\n"},
		{curated, "", "true true 100\nno more items in iterator\n"},
		{curated, "GOGC=37\x00", "true true 37\nno more items in iterator\n"},
		{curated, "GOGC=off\x00", "true true -1\nno more items in iterator\n"},
	} {
		r := runPrestartedWith(t, []string{"GOGC=off"}, cloud, c.dir, c.gogc+call(c.dir), "--call-on-stdin")
		if r.stdout != c.want || r.exitCode != 0 {
			t.Errorf("%s with %q: want %q (exit 0), got %q exit %d; stderr %s", c.dir, c.gogc, c.want, r.stdout, r.exitCode, r.stderr)
		}
	}
}
