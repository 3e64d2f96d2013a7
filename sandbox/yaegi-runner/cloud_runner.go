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
// costs tens of milliseconds. The plugin starts the sibling directly when the program imports
// anything beyond the standard library (plugins/yaegi/runner_command.hpp), so that a session
// using curated packages finds it prestarted; a kode-gopher-yaegi that finds a curated import
// all the same hands the program to the sibling (same arguments, same environment) before
// anything else happens.

const cloudRunnerName = "kode-gopher-yaegi-cloud"

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
