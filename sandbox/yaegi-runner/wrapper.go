package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
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
		return map[string]any{"kind": "marshal_error", "type": fmt.Sprintf("%T", value), "message": err.Error()}, ""
	}
	return map[string]any{"kind": "ok", "value": json.RawMessage(encoded)}, ""
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
