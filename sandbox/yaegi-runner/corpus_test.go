package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCorpus is the differential test of tests/yaegi-corpus (its README describes the layout):
// every case is built with go build and run, then run by the runner with and without --auto.
// It fails when a case --auto accepts differs from the compiled run, and when a case does not
// behave as its case.json says. -update rewrites the case.json files from what was observed
// (then review the diff: docs/runtimes.md's table is made from them).

var update = flag.Bool("update", false, "rewrite tests/yaegi-corpus/cases/*/case.json from the observed results")

type caseExpectation struct {
	Auto   string            `json:"auto"`
	Yaegi  string            `json:"yaegi"`
	Reason string            `json:"reason"`
	Env    map[string]string `json:"env,omitempty"`
}

type runOutcome struct {
	stdout   string
	stderr   string
	exitCode int
	result   map[string]any // nil when no result.json
}

type caseResult struct {
	name     string
	expected caseExpectation
	observed caseExpectation
	problems []string
}

func TestCorpus(t *testing.T) {
	runner, corpus, sourceRoot := os.Getenv("KG_YAEGI_RUNNER"), os.Getenv("KG_YAEGI_CORPUS"), os.Getenv("KG_SOURCE_ROOT")
	if runner == "" || corpus == "" || sourceRoot == "" {
		t.Skip("KG_YAEGI_RUNNER, KG_YAEGI_CORPUS and KG_SOURCE_ROOT are set by `meson test yaegi-runner`")
	}
	wrapper, err := compiledWrapperSource(filepath.Join(sourceRoot, "plugins", "go-program", "snippet_wrapper.cpp"))
	if err != nil {
		t.Fatal(err)
	}
	lockfile := filepath.Join(sourceRoot, "sandbox", "lockfile")
	names, err := filepath.Glob(filepath.Join(corpus, "cases", "*"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no cases in %s/cases: %v", corpus, err)
	}
	sort.Strings(names)
	work := t.TempDir()
	results := make([]caseResult, len(names))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2) // two cores: two cases at a time
	for i, caseDir := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = runCase(caseDir, filepath.Join(work, filepath.Base(caseDir)), runner, wrapper, lockfile)
		}()
	}
	wg.Wait()

	var accepted, rerun, works, diverges, fails int
	for _, r := range results {
		if r.observed.Auto != "compiled" {
			accepted++
		}
		if r.observed.Auto == "rerun" {
			rerun++
		}
		switch r.observed.Yaegi {
		case "works":
			works++
		case "diverges":
			diverges++
		default:
			fails++
		}
		for _, p := range r.problems {
			t.Errorf("%s: %s", r.name, p)
		}
		if *update {
			writeExpectation(filepath.Join(corpus, "cases", r.name, "case.json"), r.observed)
			continue
		}
		if r.observed.Auto != r.expected.Auto || r.observed.Yaegi != r.expected.Yaegi {
			t.Errorf("%s: case.json says auto=%s yaegi=%s, observed auto=%s yaegi=%s (%s)", r.name,
				r.expected.Auto, r.expected.Yaegi, r.observed.Auto, r.observed.Yaegi, r.observed.Reason)
		}
	}
	summary := fmt.Sprintf("%d cases: --auto accepts %d (%d of them stopped at run time and rerun compiled); under yaegi %d work, %d diverge, %d fail", len(results), accepted, rerun, works, diverges, fails)
	t.Log(summary)
	if *update {
		if err := writeCorpusTable(filepath.Join(sourceRoot, "docs", "runtimes.md"), results, summary); err != nil {
			t.Error(err)
		}
	}
}

// writeCorpusTable replaces the table between the corpus markers of docs/runtimes.md.
func writeCorpusTable(docPath string, results []caseResult, summary string) error {
	const start, end = "<!-- corpus table: written by TestCorpus -update -->", "<!-- end of corpus table -->"
	doc, err := os.ReadFile(docPath)
	if err != nil {
		return err
	}
	i, j := bytes.Index(doc, []byte(start)), bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		return fmt.Errorf("%s has no corpus table markers", docPath)
	}
	var b strings.Builder
	b.WriteString(start + "\n\n" + summary + ".\n\n| case | yaegi | auto | reason |\n|---|---|---|---|\n")
	for _, r := range results {
		reason := strings.NewReplacer("|", "\\|", "\n", " ").Replace(r.observed.Reason)
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.name, r.observed.Yaegi, r.observed.Auto, reason)
	}
	b.WriteString("\n")
	out := append(append(append([]byte(nil), doc[:i]...), b.String()...), doc[j:]...)
	return os.WriteFile(docPath, out, 0o644)
}

func runCase(caseDir, work, runner, wrapper, lockfile string) caseResult {
	name := filepath.Base(caseDir)
	r := caseResult{name: name}
	if data, err := os.ReadFile(filepath.Join(caseDir, "case.json")); err == nil {
		if err := json.Unmarshal(data, &r.expected); err != nil {
			r.problems = append(r.problems, "case.json: "+err.Error())
		}
	}
	r.observed.Env = r.expected.Env
	fail := func(format string, args ...any) caseResult {
		r.problems = append(r.problems, fmt.Sprintf(format, args...))
		return r
	}

	compiledDir, interpDir := filepath.Join(work, "compiled"), filepath.Join(work, "yaegi")
	for _, dir := range []string{compiledDir, interpDir} {
		if err := normalizeCase(caseDir, dir, wrapper, lockfile); err != nil {
			return fail("normalizing: %v", err)
		}
	}
	// The compiled wrapper writes to /app/.kode-gopher; here the program's folder stands in.
	wrapperPath := filepath.Join(compiledDir, wrapperFileName)
	if data, err := os.ReadFile(wrapperPath); err == nil {
		os.WriteFile(wrapperPath, bytes.Replace(data, []byte(`"/app/.kode-gopher"`), []byte(fmt.Sprintf("%q", filepath.Join(compiledDir, ".kode-gopher"))), 1), 0o644)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(work, "prog"), ".")
	build.Dir = compiledDir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "CGO_ENABLED=0")
	buildOutput, buildErr := build.CombinedOutput()
	var compiled runOutcome
	if buildErr == nil {
		compiled = runIn(compiledDir, r.expected.Env, filepath.Join(work, "prog"))
	}
	yaegi := runIn(interpDir, r.expected.Env, runner, interpDir)
	os.RemoveAll(filepath.Join(interpDir, ".kode-gopher"))
	auto := runIn(interpDir, r.expected.Env, runner, "--auto", interpDir)

	// What --auto decided.
	acceptedLine, declinedLine := runnerEvent(auto.stderr, "accepted"), runnerEvent(auto.stderr, "declined")
	switch {
	case acceptedLine != nil && declinedLine == nil && runnerEvent(auto.stderr, "limitation") != nil:
		// Accepted, then the runner stopped it at run time (decode_guard.go, or the
		// interpreter's own failure): auto runs it again compiled.
		r.observed.Auto = "rerun"
	case acceptedLine != nil && declinedLine == nil:
		r.observed.Auto = "yaegi"
	case declinedLine != nil:
		r.observed.Auto = "compiled"
	default:
		return fail("--auto said neither accepted nor declined (exit %d): %s", auto.exitCode, auto.stderr)
	}

	// What yaegi does with it.
	difference := compare(compiled, yaegi)
	switch {
	case buildErr != nil && runnerEvent(yaegi.stderr, "compile_error") != nil:
		// The compiler rejects it (a case about what go build rejects): so must the runner.
		r.observed.Yaegi = "works"
		r.observed.Reason = "go build and the runner both reject it: " + eventText(runnerEvent(yaegi.stderr, "compile_error"))
	case buildErr != nil:
		r.observed.Yaegi = "diverges"
		r.observed.Reason = "go build rejects it but the interpreter runs it: " + firstLine(string(buildOutput))
		difference = r.observed.Reason
	case runnerEvent(yaegi.stderr, "compile_error") != nil:
		r.observed.Yaegi = "fails"
		r.observed.Reason = "the interpreter rejects it: " + eventText(runnerEvent(yaegi.stderr, "compile_error"))
	case runnerEvent(yaegi.stderr, "limitation") != nil:
		r.observed.Yaegi = "fails"
		r.observed.Reason = "interpreter limitation at run time: " + eventText(runnerEvent(yaegi.stderr, "limitation"))
	case runnerEvent(yaegi.stderr, "internal") != nil:
		return fail("runner internal error: %s", yaegi.stderr)
	case difference != "":
		r.observed.Yaegi = "diverges"
		r.observed.Reason = difference
	default:
		r.observed.Yaegi = "works"
		r.observed.Reason = ""
	}
	switch r.observed.Auto {
	case "compiled":
		r.observed.Reason = strings.TrimPrefix(r.observed.Reason+"; auto declines: "+eventText(declinedLine), "; ")
	case "rerun":
		r.observed.Reason = strings.TrimPrefix(r.observed.Reason+"; under --auto the run stops at: "+eventText(runnerEvent(auto.stderr, "limitation")), "; ")
	}

	// The contract: where auto picks yaegi, nothing may differ. A run that ends in
	// "declined" (the interpreter could not compile it) or "limitation" goes to the compiler.
	if buildErr != nil && r.observed.Auto != "compiled" {
		r.problems = append(r.problems, "--auto accepted a program go build rejects: "+firstLine(string(buildOutput)))
	}
	if buildErr == nil && r.observed.Auto == "yaegi" && runnerEvent(auto.stderr, "limitation") == nil && runnerEvent(auto.stderr, "declined") == nil {
		if d := compare(compiled, auto); d != "" {
			r.problems = append(r.problems, "--auto accepted it but the interpreter's run differs from the compiled one: "+d)
		}
	}
	return r
}

// normalizeCase lays the case out as plugins/go-program does for a build: snippet package
// clauses rewritten to main, kg_wrapper.go added, the lockfile's go.mod/go.sum.
func normalizeCase(caseDir, dir, wrapper, lockfile string) error {
	snippet := false
	err := filepath.WalkDir(caseDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "case.json" {
			return err
		}
		rel, _ := filepath.Rel(caseDir, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !strings.Contains(rel, "/") && strings.HasSuffix(rel, ".go") {
			f, err := parser.ParseFile(token.NewFileSet(), rel, data, parser.PackageClauseOnly)
			if err != nil {
				return err
			}
			if f.Name.Name != "main" {
				snippet = true
				off := int(f.Name.Pos()) - 1
				data = append(append(append([]byte(nil), data[:off]...), "main"...), data[off+len(f.Name.Name):]...)
			}
		}
		target := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(target), 0o755)
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		return err
	}
	if snippet {
		if err := os.WriteFile(filepath.Join(dir, wrapperFileName), []byte(wrapper), 0o644); err != nil {
			return err
		}
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(lockfile, f))
		if err != nil {
			return err
		}
		os.WriteFile(filepath.Join(dir, f), data, 0o644)
	}
	return nil
}

// compiledWrapperSource takes the generated kg_wrapper.go out of its C++ source, so the test
// follows the wrapper the compiled-go plugin really writes.
func compiledWrapperSource(cppFile string) (string, error) {
	data, err := os.ReadFile(cppFile)
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`(?s)R"go\((.*?)\)go"`).FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("%s: no R\"go(...)go\" wrapper source", cppFile)
	}
	return string(m[1]), nil
}

func runIn(dir string, env map[string]string, command string, args ...string) runOutcome {
	cmd := exec.Command(command, args...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	os.RemoveAll(filepath.Join(dir, ".kode-gopher"))
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return runOutcome{stderr: err.Error(), exitCode: -1}
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		err = <-done
	}
	out := runOutcome{stdout: stdout.String(), stderr: stderr.String()}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		out.exitCode = exitErr.ExitCode()
	} else if err != nil {
		out.exitCode = -1
	}
	if data, err := os.ReadFile(filepath.Join(dir, ".kode-gopher", "result.json")); err == nil {
		out.result = map[string]any{}
		if json.Unmarshal(data, &out.result) != nil {
			out.result = map[string]any{"unparsable": string(data)}
		}
		if out.result["kind"] == "panic" {
			delete(out.result, "stack") // a compiled and an interpreted stack cannot match
		}
	}
	return out
}

// compare returns "" when stdout, exit code and result.json agree, else what differs.
func compare(compiled, other runOutcome) string {
	var diffs []string
	if compiled.stdout != other.stdout {
		diffs = append(diffs, fmt.Sprintf("stdout %q, compiled %q", clip(other.stdout), clip(compiled.stdout)))
	}
	if compiled.exitCode != other.exitCode {
		diffs = append(diffs, fmt.Sprintf("exit code %d, compiled %d", other.exitCode, compiled.exitCode))
	}
	if !reflect.DeepEqual(compiled.result, other.result) {
		a, _ := json.Marshal(other.result)
		b, _ := json.Marshal(compiled.result)
		diffs = append(diffs, fmt.Sprintf("result %s, compiled %s", clip(string(a)), clip(string(b))))
	}
	return strings.Join(diffs, "; ")
}

func clip(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}

// runnerEvent finds the runner's message of one kind on stderr (the token is unset in these
// runs, so the prefix is "kode-gopher-yaegi:").
func runnerEvent(stderr, event string) map[string]any {
	for _, line := range strings.Split(stderr, "\n") {
		rest, ok := strings.CutPrefix(line, "kode-gopher-yaegi: ")
		if !ok {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(rest), &m) == nil && m["event"] == event {
			return m
		}
	}
	return nil
}

func eventText(m map[string]any) string {
	for _, k := range []string{"reason", "message"} {
		if s, ok := m[k].(string); ok {
			return s
		}
	}
	if d, ok := m["diagnostics"].([]any); ok && len(d) > 0 {
		if first, ok := d[0].(map[string]any); ok {
			return fmt.Sprintf("%v:%v: %v", first["file"], first["line"], first["message"])
		}
	}
	return ""
}

func writeExpectation(path string, e caseExpectation) {
	data, _ := json.MarshalIndent(e, "", "  ")
	os.WriteFile(path, append(data, '\n'), 0o644)
}
