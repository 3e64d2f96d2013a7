package main

import (
	"encoding/json"
	"fmt"
	"os"
)

// Exit codes of the runner's own outcomes (the user's program keeps its own).
const (
	exitCompileError = 2  // the interpreter rejected the program (compile_error)
	exitInternal     = 70 // the runner itself failed (internal)
	exitDeclined     = 86 // --auto: the static check or the interpreter's compile phase said no
	exitLimitation   = 87 // the interpreter failed at run time in a way that is not the program's bug
)

// tokenVariable carries the secret that marks the runner's stderr lines for the plugin; it is
// removed from the environment before any user code runs.
const tokenVariable = "KG_YAEGI_TOKEN"

// messenger writes the one-line messages of the plugin contract (docs/runtimes.md) to stderr:
// "kode-gopher-yaegi[<token>] <json>". Without a token (a person running the runner by hand)
// the prefix is "kode-gopher-yaegi:" so the lines stay readable.
type messenger struct{ token string }

type diagnostic struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Message string `json:"message"`
}

type message struct {
	Event       string           `json:"event"`
	Reason      string           `json:"reason,omitempty"`
	Message     string           `json:"message,omitempty"`
	Diagnostics []diagnostic     `json:"diagnostics,omitempty"`
	ElapsedUS   *int64           `json:"elapsed_us,omitempty"`
	Evidence    *declineEvidence `json:"evidence,omitempty"`
}

func (m messenger) send(msg message) {
	data, err := json.Marshal(msg)
	if err != nil { // only plain strings and numbers: cannot happen
		data = []byte(`{"event":"internal","message":"cannot encode a runner message"}`)
	}
	prefix := "kode-gopher-yaegi:"
	if m.token != "" {
		prefix = "kode-gopher-yaegi[" + m.token + "]"
	}
	fmt.Fprintf(os.Stderr, "%s %s\n", prefix, data)
}

func (m messenger) accepted(reason string) { m.send(message{Event: "accepted", Reason: reason}) }
func (m messenger) declined(reason string) { m.send(message{Event: "declined", Reason: reason}) }

// declinedWith: a static-check decline with the declaration it points at (decline_evidence.go).
func (m messenger) declinedWith(reason string, evidence *declineEvidence) {
	m.send(message{Event: "declined", Reason: reason, Evidence: evidence})
}
func (m messenger) compiled(us int64)      { m.send(message{Event: "compiled", ElapsedUS: &us}) }
func (m messenger) started()               { m.send(message{Event: "started"}) }
func (m messenger) limitation(text string) { m.send(message{Event: "limitation", Message: text}) }
func (m messenger) internal(text string)   { m.send(message{Event: "internal", Message: text}) }
func (m messenger) compileError(d []diagnostic) {
	m.send(message{Event: "compile_error", Diagnostics: d})
}
