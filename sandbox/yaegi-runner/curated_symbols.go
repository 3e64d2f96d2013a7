package main

import "github.com/traefik/yaegi/interp"

// useCuratedSymbols loads the symbol tables of the curated packages (generated at build time,
// see build-runner.sh).
func useCuratedSymbols(i *interp.Interpreter) error { return nil }
