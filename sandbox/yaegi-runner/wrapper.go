package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// The wrapped mode's main, done by the runner instead of interpreting the generated
// kg_wrapper.go (programFS hides that file): the same steps and the same result.json bytes as
// plugins/compiled-go/snippet_wrapper.cpp's wrapper, with the panic's stack taken from the
// interpreted frames and the interpreter's own failures told apart from the program's panics.
// tests/yaegi-corpus checks the two stay byte-identical.

const wrapperFileName = "kg_wrapper.go"

type snippetEntry = func(context.Context) (any, error)

// snippetRun checks run's signature as the compiled wrapper's typed variable does.
func snippetRun(entry reflect.Value) (snippetEntry, error) {
	run, ok := entry.Interface().(snippetEntry)
	if !ok {
		return nil, fmt.Errorf("cannot use run (value of type %s) as func(context.Context) (any, error) value: a snippet's run must be `func run(ctx context.Context) (any, error)`", entry.Type())
	}
	return run, nil
}

func runWrapped(dir string, run snippetEntry, trace *panicTrace, say messenger) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	result, limitation := invokeSnippet(ctx, dir, run, trace)
	stop()
	if limitation != "" {
		say.limitation(limitation)
		return exitLimitation
	}
	writeResult(filepath.Join(dir, ".kode-gopher"), result)
	if result["kind"] != "ok" {
		return 1
	}
	return 0
}

func invokeSnippet(ctx context.Context, dir string, run snippetEntry, trace *panicTrace) (result map[string]any, limitation string) {
	defer func() {
		if recovered := recover(); recovered != nil {
			if reason := interpreterFailure(recovered); reason != "" {
				result, limitation = nil, reason
				return
			}
			result = map[string]any{
				"kind":    "panic",
				"message": withoutInterpreterPosition(fmt.Sprint(recovered)),
				"stack":   trace.stack(dir),
			}
		}
	}()
	value, err := run(ctx)
	if err != nil {
		return map[string]any{"kind": "error", "message": err.Error()}, ""
	}
	encoded, err := json.Marshal(value)
	if err != nil {
		return map[string]any{"kind": "marshal_error", "type": fmt.Sprintf("%T", value), "message": marshalMessage(value, err)}, ""
	}
	return map[string]any{"kind": "ok", "value": json.RawMessage(encoded)}, ""
}

// marshalMessage says where a value holds what JSON cannot (NaN or ±Inf) and what to do; any
// other marshal error is told as it is. The same text as the compiled wrapper's
// kodeGopherMarshalMessage.
func marshalMessage(value any, err error) string {
	var unsupported *json.UnsupportedValueError
	if !errors.As(err, &unsupported) {
		return err.Error()
	}
	path, number := nonFinite(reflect.ValueOf(value), "result", map[uintptr]bool{}, 0)
	if path == "" {
		return err.Error()
	}
	return path + " is " + number + ", which JSON cannot hold, so the whole value was lost (" + err.Error() +
		"): replace NaN and ±Inf before returning, e.g. skip the item, use a *float64 left nil for \"no value\", or format the number as a string"
}

// nonFinite finds the first NaN or ±Inf in the order encoding/json visits a value (struct
// fields by their JSON names, map keys sorted) and names its path, e.g. result.items[3].score.
// The compiled wrapper's kodeGopherNonFinite, step for step.
func nonFinite(value reflect.Value, path string, seen map[uintptr]bool, depth int) (string, string) {
	if !value.IsValid() || depth > 256 {
		return "", ""
	}
	switch value.Kind() {
	case reflect.Float32, reflect.Float64:
		number := value.Float()
		if math.IsNaN(number) || math.IsInf(number, 0) {
			return path, strconv.FormatFloat(number, 'g', -1, 64)
		}
	case reflect.Pointer, reflect.Map:
		if value.IsNil() || seen[value.Pointer()] {
			return "", ""
		}
		seen[value.Pointer()] = true
		if value.Kind() == reflect.Pointer {
			return nonFinite(value.Elem(), path, seen, depth+1)
		}
		keys := value.MapKeys()
		names := make([]string, len(keys))
		order := make([]int, len(keys))
		for i, key := range keys {
			names[i], order[i] = fmt.Sprint(key), i
		}
		sort.Slice(order, func(a, b int) bool { return names[order[a]] < names[order[b]] })
		for _, i := range order {
			if found, number := nonFinite(value.MapIndex(keys[i]), path+"["+strconv.Quote(names[i])+"]", seen, depth+1); found != "" {
				return found, number
			}
		}
	case reflect.Interface:
		return nonFinite(value.Elem(), path, seen, depth+1)
	case reflect.Slice, reflect.Array:
		for i := 0; i < value.Len(); i++ {
			if found, number := nonFinite(value.Index(i), path+"["+strconv.Itoa(i)+"]", seen, depth+1); found != "" {
				return found, number
			}
		}
	case reflect.Struct:
		fields := value.Type()
		for i := 0; i < fields.NumField(); i++ {
			field := fields.Field(i)
			tag := field.Tag.Get("json")
			name, _, _ := strings.Cut(tag, ",")
			if tag == "-" || (!field.IsExported() && !field.Anonymous) {
				continue
			}
			fieldPath := path + "." + field.Name
			if name != "" {
				fieldPath = path + "." + name
			} else if field.Anonymous {
				fieldPath = path
			}
			if found, number := nonFinite(value.Field(i), fieldPath, seen, depth+1); found != "" {
				return found, number
			}
		}
	}
	return "", ""
}

// writeResult leaves a result the program wrote itself untouched.
func writeResult(resultDir string, result map[string]any) {
	resultPath := filepath.Join(resultDir, "result.json")
	if _, err := os.Stat(resultPath); err == nil {
		return
	}
	data, err := json.Marshal(result)
	if err != nil {
		data = []byte(`{"kind":"marshal_error","type":"result","message":` + fmt.Sprintf("%q", err.Error()) + `}`)
	}
	if err := os.MkdirAll(resultDir, 0o755); err == nil {
		_ = os.WriteFile(resultPath, data, 0o644)
	}
}

// runVerbatim calls the program's main. A panic that escapes it ends the process as Go's
// runtime would (message and stack on stderr, exit 2); returning from main ends the process
// even if goroutines still run.
func runVerbatim(dir string, main func(), trace *panicTrace, say messenger) (code int) {
	defer func() {
		if recovered := recover(); recovered != nil {
			code = uncaughtPanic(dir, recovered, trace, say)
		}
	}()
	main()
	return 0
}

// uncaughtPanic ends the process for a panic nothing recovered: the program's (exit 2, as Go's
// runtime) or the interpreter's own (limitation).
func uncaughtPanic(dir string, recovered any, trace *panicTrace, say messenger) int {
	if reason := interpreterFailure(recovered); reason != "" {
		say.limitation(reason)
		return exitLimitation
	}
	return reportPanic(dir, recovered, trace)
}
