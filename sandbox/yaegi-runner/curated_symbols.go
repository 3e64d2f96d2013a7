package main

import (
	"fmt"
	"strings"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
	"github.com/traefik/yaegi/stdlib/unrestricted"
)

// curatedSymbols holds the symbol tables of the curated packages; the build generates the files
// that fill it (internal/extractsyms, run by build-runner.sh) from the lockfile's versions.
// curatedUnavailable names the curated packages the extractor could not handle, and why.
// curatedAvailable names the packages kode-gopher-yaegi-cloud has tables for (this binary too
// when it is that one).
var (
	curatedSymbols     = interp.Exports{}
	curatedUnavailable = map[string]string{}
	curatedAvailable   = map[string]bool{}
)

func useCuratedSymbols(i *interp.Interpreter) error {
	if len(curatedSymbols) == 0 {
		return nil
	}
	if err := i.Use(curatedSymbols); err != nil {
		return fmt.Errorf("loading the curated packages' symbol tables: %w", err)
	}
	return nil
}

// availablePackages is the set of import paths the interpreter has symbols for. Symbol tables
// are keyed "<import path>/<package name>".
func availablePackages() map[string]bool {
	out := map[string]bool{}
	for _, table := range []interp.Exports{stdlib.Symbols, unrestricted.Symbols} {
		for key := range table {
			if i := strings.LastIndexByte(key, '/'); i > 0 {
				out[key[:i]] = true
			}
		}
	}
	for path := range curatedAvailable {
		out[path] = true
	}
	return out
}
