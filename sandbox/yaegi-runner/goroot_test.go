package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestGoRootRunPrograms widens the differential corpus (tests/yaegi-corpus) with the Go
// distribution's own self-checking programs: every single-file `// run` program of $GOROOT/test
// (KG_GOROOT_TEST_DIR, set by `meson test yaegi-goroot`) goes through `--auto`; each one it
// accepts is built with go build and run, and must give the same stdout and exit code under the
// runner. Those programs check the language's corners (they panic or print when a result is
// wrong), so a construct class the interpreter gets wrong and the check lets through shows up
// here. An interpreter limitation (auto reruns it compiled) and a run slower than the deadline
// are counted, not failures. goRootKnown lists what is accepted and differs, with the reason
// (empty: none).

var goRootKnown = map[string]string{}

func TestGoRootRunPrograms(t *testing.T) {
	dir, runner, sourceRoot := os.Getenv("KG_GOROOT_TEST_DIR"), os.Getenv("KG_YAEGI_RUNNER"), os.Getenv("KG_SOURCE_ROOT")
	if dir == "" || runner == "" || sourceRoot == "" {
		t.Skip("KG_GOROOT_TEST_DIR, KG_YAEGI_RUNNER and KG_SOURCE_ROOT are set by `meson test yaegi-goroot`")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("this Go installation has no test folder: %v", err)
	}
	programs := goRootRunPrograms(t, dir)
	if len(programs) < 50 {
		t.Fatalf("only %d single-file `// run` programs in %s", len(programs), dir)
	}
	lockfile := filepath.Join(sourceRoot, "sandbox", "lockfile")
	work := t.TempDir()
	type outcome struct{ name, verdict, detail string }
	outcomes := make([]outcome, len(programs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2) // two cores
	for i, src := range programs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			name := strings.TrimSuffix(filepath.Base(src), ".go")
			verdict, detail := goRootProgram(src, filepath.Join(work, name), runner, lockfile)
			outcomes[i] = outcome{name, verdict, detail}
		}()
	}
	wg.Wait()

	counts := map[string]int{}
	for _, o := range outcomes {
		counts[o.verdict]++
		switch o.verdict {
		case "differs":
			if reason, known := goRootKnown[o.name]; known {
				t.Logf("%s: differs (known: %s): %s", o.name, reason, o.detail)
				continue
			}
			t.Errorf("%s: --auto accepted it but the interpreter's run differs from the compiled one: %s", o.name, o.detail)
		case "error":
			t.Errorf("%s: %s", o.name, o.detail)
		case "limitation", "slow":
			t.Logf("%s: %s: %s", o.name, o.verdict, o.detail)
		}
	}
	t.Logf("%d $GOROOT/test `// run` programs: --auto declines %d; of those it accepts %d match compiled Go, %d differ, %d hit an interpreter limitation (auto reruns them compiled), %d outran the deadline, %d do not build",
		len(programs), counts["declined"], counts["same"], counts["differs"], counts["limitation"], counts["slow"], counts["no build"])
	if counts["same"] < 10 {
		t.Errorf("--auto accepted and matched only %d programs: the comparison proves little", counts["same"])
	}
}

// goRootRunPrograms: the files whose first line is exactly `// run` (no flags, no build
// constraints: those need the test driver).
func goRootRunPrograms(t *testing.T, dir string) []string {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		file, err := os.Open(f)
		if err != nil {
			continue
		}
		scanner := bufio.NewScanner(file)
		first := scanner.Scan() && scanner.Text() == "// run"
		constrained := false
		for scanner.Scan() {
			if line := scanner.Text(); strings.HasPrefix(line, "//go:build") || strings.HasPrefix(line, "// +build") {
				constrained = true
			}
		}
		file.Close()
		if first && !constrained {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

// goRootProgram: "declined", "same", "differs", "limitation", "slow", "no build" or "error".
func goRootProgram(src, work, runner, lockfile string) (verdict, detail string) {
	interpDir, compiledDir := filepath.Join(work, "yaegi"), filepath.Join(work, "compiled")
	data, err := os.ReadFile(src)
	if err != nil {
		return "error", err.Error()
	}
	for _, d := range []string{interpDir, compiledDir} {
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "main.go"), data, 0o644)
		for _, f := range []string{"go.mod", "go.sum"} {
			if b, err := os.ReadFile(filepath.Join(lockfile, f)); err == nil {
				os.WriteFile(filepath.Join(d, f), b, 0o644)
			}
		}
	}
	auto := runWithin(interpDir, 30*time.Second, runner, "--auto", interpDir)
	switch {
	case auto.timedOut:
		return "slow", "the interpreter did not finish within 30 s"
	case runnerEvent(auto.stderr, "declined") != nil:
		return "declined", eventText(runnerEvent(auto.stderr, "declined"))
	case runnerEvent(auto.stderr, "accepted") == nil:
		return "error", "--auto said neither accepted nor declined: " + clip(auto.stderr)
	case runnerEvent(auto.stderr, "limitation") != nil:
		return "limitation", eventText(runnerEvent(auto.stderr, "limitation"))
	}
	build := exec.Command("go", "build", "-o", filepath.Join(work, "prog"), ".")
	build.Dir = compiledDir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "CGO_ENABLED=0")
	if output, err := build.CombinedOutput(); err != nil {
		return "no build", "--auto accepted what go build rejects: " + clip(string(output))
	}
	compiled := runWithin(compiledDir, 30*time.Second, filepath.Join(work, "prog"))
	if d := compare(compiled.runOutcome, auto.runOutcome); d != "" {
		return "differs", d
	}
	return "same", ""
}

type timedRun struct {
	runOutcome
	timedOut bool
}

func runWithin(dir string, limit time.Duration, command string, args ...string) timedRun {
	start := time.Now()
	out := runIn(dir, nil, command, args...)
	// runIn kills at 60 s; a run past the limit counts as slow.
	return timedRun{runOutcome: out, timedOut: time.Since(start) > limit}
}
