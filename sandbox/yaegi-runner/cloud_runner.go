package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// The runner comes as two binaries built from one source: kode-gopher-yaegi, with the standard
// library only, starts in a few milliseconds; kode-gopher-yaegi-cloud also links the curated
// packages and their symbol tables (build tag kg_curated), whose package initialization alone
// costs tens of milliseconds. The plugin always runs kode-gopher-yaegi. A prestarted runner
// started with --curated (the plugin saw a non-standard import) becomes the sibling while it
// waits for its call; any other runner that finds a curated import in its program hands it to
// the sibling (same arguments, same environment) before anything else happens.

const cloudRunnerName = "kode-gopher-yaegi-cloud"

// becomeCloudRunner: a prestarted runner asked for the curated tables (curatedFlag) execs the
// sibling binary at once, with no call data yet (its environment is the sandbox server's and its
// stdin the pipe the call will come on, both kept across the exec), so the sibling loads its
// tables while no call waits. The cloud binary itself returns at once. When the sibling cannot
// be started this one waits for the call all the same: a call that needs the curated tables
// then gets execCloudRunner's error, with the call's token, and any other call runs here.
func becomeCloudRunner() {
	if len(curatedSymbols) > 0 {
		return
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	cloud := filepath.Join(filepath.Dir(self), cloudRunnerName)
	// The collector off while it starts: the curated packages' initialization and tables
	// allocate ~15 MB that all stay, and two collections on the way cost a quarter of the
	// start's CPU. The call's own GOGC applies once the call is in (applyCallGC).
	env := append(os.Environ(), "GOGC=off")
	_ = syscall.Exec(cloud, []string{cloud, callOnStdinFlag}, env)
}

// needsCloudRunner: this binary lacks the curated tables and the program imports one of them.
func needsCloudRunner(p *program) bool {
	if len(curatedSymbols) > 0 {
		return false
	}
	for _, f := range p.allFiles() {
		for _, spec := range f.Imports {
			if path, _ := strconv.Unquote(spec.Path.Value); curatedAvailable[path] {
				return true
			}
		}
	}
	return false
}

// execCloudRunner replaces this process with the sibling binary; it returns only on failure.
func execCloudRunner(args []string, token string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding the runner's own path: %w", err)
	}
	cloud := filepath.Join(filepath.Dir(self), cloudRunnerName)
	env := os.Environ()
	if token != "" {
		env = append(env, tokenVariable+"="+token)
	}
	if err := syscall.Exec(cloud, append([]string{cloud}, args...), env); err != nil {
		return fmt.Errorf("the program imports curated packages, which %s runs, and it cannot be started: %w (install it next to %s)", cloud, err, self)
	}
	return nil
}
