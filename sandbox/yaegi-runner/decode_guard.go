package main

// The decode guard: json.Unmarshal into the program's own types under --auto.
//
// Decoding that succeeds fills an interpreted struct exactly as it fills a compiled one (the
// same encoding/json walks the same fields through reflection; patches/0002 keeps unexported
// fields out). A failed decoding does not: its error names the types it met ("json: cannot
// unmarshal string into Go struct field order.amount of type float64"), and an interpreted
// struct type has no name (reflect.StructOf), a named basic type is its underlying type
// ("string" for main.Status). So instead of declining every such program before it runs, the
// runner replaces json.Unmarshal in the interpreter's symbol table: when the program's source
// declares any type of its own (the static part, decodeGuardNeeded) and decoding returns any
// error but a syntax error (whose text names no type: the input is checked whole before any
// value is touched), the runner reports `limitation` and exits 87 before the program sees the
// error; auto then runs the call compiled (daemon/session/runtime_choice.cpp), which gives
// compiled Go's error text. Without --auto the guard is off: a caller who asked for yaegi gets
// the interpreter's own error text, as before (docs/runtimes.md).
//
// What the guard cannot cover stays a static decline (autocheck_printing.go, checkDecodeTarget):
// (*json.Decoder).Decode (a method of a compiled type, which the interpreter calls through
// reflection, not through the symbol table), other packages' Unmarshal and UnmarshalJSON, and
// targets whose success already differs (the program's interface types).

import (
	"encoding/json"
	"errors"
	"go/ast"
	"os"
	"reflect"

	"github.com/traefik/yaegi/interp"
)

// decodeGuard is armed by runProgram before the program starts; the symbol table, loaded
// earlier (a prestarted runner loads it before its call is known), reads it at each call.
var decodeGuard struct {
	armed bool
	say   messenger
}

// decodeGuardSymbols overrides encoding/json's Unmarshal; Use merges it over yaegi's table.
func decodeGuardSymbols() interp.Exports {
	return interp.Exports{"encoding/json/json": {"Unmarshal": reflect.ValueOf(guardedUnmarshal)}}
}

func guardedUnmarshal(data []byte, v any) error {
	err := json.Unmarshal(data, v)
	if err == nil || !decodeGuard.armed {
		return err
	}
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return err
	}
	decodeGuard.say.limitation("json.Unmarshal failed (" + err.Error() + "); compiled Go names the program's types in this error, the interpreter cannot")
	os.Exit(exitLimitation)
	return err
}

// decodeGuardNeeded: the program declares a type of its own (a type declaration other than an
// alias, or a struct type anywhere), so a decoding error may name one.
func decodeGuardNeeded(p *program) bool {
	found := false
	for _, f := range p.allFiles() {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeSpec:
				if !n.Assign.IsValid() {
					found = true
				}
			case *ast.StructType:
				found = true
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}
