package main

// Decline evidence: with a `declined` from the static check, the runner names the top-level
// declaration the reason points at, verbatim (its file and text). The daemon keeps the last one
// for the session and, while a later auto call of that session still holds that exact text in
// that file, hands the call to the compiler without asking the runner again: a decline costs a
// sandbox round trip, and an agent's next edit of a CPU-bound program mostly leaves the loop
// that made it CPU-bound alone (docs/runtimes.md, "When auto picks yaegi"). Declining is never
// wrong, only slower when the rest of the program changed what the check would say, so the
// evidence only has to be a good guess.

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

type declineEvidence struct {
	File string `json:"file"`
	Text string `json:"text"`
}

// maxEvidenceBytes bounds what the daemon keeps per session and the decline line (stderr is
// capped by the call's output limit).
const maxEvidenceBytes = 8 << 10

// The first "file.go:line" in a reason: every rule says where it looked (constructCheck.at).
var reasonPosition = regexp.MustCompile(`([A-Za-z0-9_./-]+\.go):(\d+)`)

// evidenceFor returns the declaration the reason points at, or nil (no position, a generated
// file, a declaration too large).
func evidenceFor(p *program, reason string) *declineEvidence {
	m := reasonPosition.FindStringSubmatch(reason)
	if m == nil {
		return nil
	}
	line, _ := strconv.Atoi(m[2])
	for _, f := range p.allFiles() {
		if p.fset.Position(f.Pos()).Filename != m[1] {
			continue
		}
		for _, decl := range f.Decls {
			start, end := p.fset.Position(decl.Pos()), p.fset.Position(decl.End())
			if line < start.Line || line > end.Line {
				continue
			}
			if end.Offset-start.Offset > maxEvidenceBytes {
				return nil
			}
			src, err := os.ReadFile(filepath.Join(p.dir, m[1]))
			if err != nil || end.Offset > len(src) {
				return nil
			}
			return &declineEvidence{File: m[1], Text: string(src[start.Offset:end.Offset])}
		}
	}
	return nil
}
