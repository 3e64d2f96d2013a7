package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

const capabilitiesLine = `{"ID":0,"KnownCommands":["get","put","close"]}`

// wire renders a request as cmd/go/internal/cache/prog.go writes it: the JSON object, an extra
// newline, then for a put with a body the body as a base64 JSON string on its own line.
func wire(t *testing.T, req Request, body string) string {
	t.Helper()
	var b strings.Builder
	if err := json.NewEncoder(&b).Encode(req); err != nil {
		t.Fatal(err)
	}
	b.WriteString("\n")
	if req.BodySize > 0 {
		b.WriteString(`"` + base64.StdEncoding.EncodeToString([]byte(body)) + "\"\n")
	}
	return b.String()
}

func putRequest(id int64, action ID, body string) Request {
	output := sha256.Sum256([]byte(body))
	return Request{ID: id, Command: CmdPut, ActionID: action[:], OutputID: output[:], BodySize: int64(len(body))}
}

func getRequest(id int64, action ID) Request {
	return Request{ID: id, Command: CmdGet, ActionID: action[:]}
}

func responseLine(t *testing.T, res Response) string {
	t.Helper()
	line, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return string(line)
}

func TestServeAnswersEveryCommand(t *testing.T) {
	fromBase := testID("from base")
	var baseOutput ID
	var basePath string
	_, base, upper := openTestStore(t, func(base string) {
		baseOutput, basePath = putNative(t, base, fromBase, "base body", baseTime)
	})
	fresh, liar := testID("fresh"), testID("liar")
	lie := putRequest(6, liar, "claimed")
	lie.BodySize = int64(len("actual!"))
	// Gets run concurrently with later requests, so the miss is for an action never put.
	input := wire(t, getRequest(1, testID("never put")), "") +
		wire(t, putRequest(2, fresh, "hello, cache"), "hello, cache") +
		wire(t, getRequest(3, fresh), "") +
		wire(t, getRequest(4, fromBase), "") +
		wire(t, Request{ID: 5, Command: CmdGet, ActionID: []byte{1, 2, 3}}, "") +
		wire(t, lie, "actual!") +
		wire(t, Request{ID: 7, Command: "frob"}, "") +
		wire(t, Request{ID: 8, Command: CmdClose}, "")

	var stdout, stderr bytes.Buffer
	if code := run([]string{"-base", base, "-upper", upper}, strings.NewReader(input), &stdout, &stderr); code != 0 || stderr.Len() != 0 {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != 9 || lines[0] != capabilitiesLine || lines[8] != `{"ID":8}` {
		t.Fatalf("stdout:\n%s\nwant 9 lines, the capabilities first and the close answer last", stdout.String())
	}
	got := map[int64]string{}
	for _, line := range lines[1:8] {
		var res Response
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			t.Fatalf("answer %q: %v", line, err)
		}
		got[res.ID] = line
	}

	freshOutput := ID(sha256.Sum256([]byte("hello, cache")))
	freshPath := outputPath(upper, freshOutput)
	liarOutput := sha256.Sum256([]byte("claimed"))
	actual := sha256.Sum256([]byte("actual!"))
	// The store's clock is real here, so take the put's time from the entry it wrote.
	entry, _, _ := readEntry(upper, fresh)
	want := map[int64]Response{
		1: {ID: 1, Miss: true},
		2: {ID: 2, DiskPath: freshPath},
		3: {ID: 3, OutputID: freshOutput[:], Size: 12, Time: &entry.Time, DiskPath: freshPath},
		4: {ID: 4, OutputID: baseOutput[:], Size: 9, Time: &baseTime, DiskPath: basePath},
		5: {ID: 5, Err: "get: ActionID has 3 bytes, want 32 (a SHA-256)"},
		6: {ID: 6, Err: fmt.Sprintf("put %x: writing %s: body's SHA-256 is %x, not the OutputID %x",
			liar[:], outputPath(upper, liarOutput), actual[:], liarOutput[:])},
		7: {ID: 7, Err: `unknown command "frob": kode-gopher-cacheprog knows get, put and close`},
	}
	for id, res := range want {
		if line := responseLine(t, res); got[id] != line {
			t.Errorf("answer %d = %s\nwant %s", id, got[id], line)
		}
	}
}

// TestServeAnswersBeforeInputEnds drives the loop through pipes the way the go command does:
// each answer must arrive while the go command still holds stdin open.
func TestServeAnswersBeforeInputEnds(t *testing.T) {
	_, base, upper := openTestStore(t, nil)
	stdinReader, stdinWriter := io.Pipe()
	stdoutReader, stdoutWriter := io.Pipe()
	exit := make(chan int, 1)
	go func() {
		var stderr bytes.Buffer
		code := run([]string{"-base", base, "-upper", upper}, stdinReader, stdoutWriter, &stderr)
		stdoutWriter.CloseWithError(fmt.Errorf("program exited %d, stderr %q", code, stderr.String()))
		exit <- code
	}()
	answers := bufio.NewReader(stdoutReader)
	exchange := func(request, want string) {
		t.Helper()
		if request != "" {
			if _, err := io.WriteString(stdinWriter, request); err != nil {
				t.Fatal(err)
			}
		}
		line, err := answers.ReadString('\n')
		if err != nil || line != want+"\n" {
			t.Fatalf("answer = %q (%v), want %q", line, err, want)
		}
	}

	action, body := testID("piped"), strings.Repeat("a large-ish object file ", 10_000)
	path := outputPath(upper, ID(sha256.Sum256([]byte(body))))
	exchange("", capabilitiesLine)
	exchange(wire(t, putRequest(1, action, body), body), responseLine(t, Response{ID: 1, DiskPath: path}))
	entry, _, _ := readEntry(upper, action)
	output := ID(sha256.Sum256([]byte(body)))
	exchange(wire(t, getRequest(2, action), ""), responseLine(t, Response{
		ID: 2, OutputID: output[:], Size: int64(len(body)), Time: &entry.Time, DiskPath: path}))
	exchange(wire(t, Request{ID: 3, Command: CmdClose}, ""), `{"ID":3}`)
	if code := <-exit; code != 0 {
		t.Fatalf("exit %d after close, want 0", code)
	}
}

func TestServeExitsOnProtocolGarbage(t *testing.T) {
	action := testID("garbage")
	put := func(size int64, body string) string {
		req := putRequest(1, action, "abc")
		req.BodySize = size
		line, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		return string(line) + "\n" + body
	}
	cases := map[string]struct{ input, message string }{
		"not JSON":          {"hello\n", `request "hello" is not a JSON object of the GOCACHEPROG protocol: invalid character 'h' looking for beginning of value`},
		"negative size":     {put(-1, ""), "request 1 has a negative BodySize -1"},
		"body not base64":   {put(3, "\n\"!!!!\"\n"), "put request 1: body is not a base64 JSON string: illegal base64 data at input byte 0"},
		"body too short":    {put(10, "\n\"YWJj\"\n"), "put request 1: body has 3 bytes but BodySize says 10"},
		"body too long":     {put(2, "\n\"YWJj\"\n"), "put request 1: body is longer than its BodySize 2"},
		"body missing":      {put(3, "\n"), "put request 1: reading its body: unexpected EOF"},
		"body not a string": {put(3, "\n{\"ID\":2}\n"), `put request 1: expected its body as a base64 JSON string, got '{'`},
		"body unterminated": {put(3, "\n\"YWJj"), "put request 1: body is not a base64 JSON string: before its closing quote: unexpected EOF"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			upper := filepath.Join(t.TempDir(), "upper")
			var stdout, stderr bytes.Buffer
			code := run([]string{"-upper", upper}, strings.NewReader(c.input), &stdout, &stderr)
			if code != 1 || stderr.String() != "kode-gopher-cacheprog: "+c.message+"\n" {
				t.Fatalf("exit %d, stderr %q; want 1 and %q", code, stderr.String(), c.message)
			}
			if stdout.String() != capabilitiesLine+"\n" {
				t.Fatalf("stdout = %q, want only the capabilities", stdout.String())
			}
			if n := countFiles(t, upper, ""); n != 0 {
				t.Fatalf("upper layer holds %d files after a broken put, want 0", n)
			}
		})
	}
}

func TestServeEndsQuietlyWhenInputEndsBetweenRequests(t *testing.T) {
	var stdout, stderr bytes.Buffer
	input := wire(t, getRequest(1, testID("x")), "")
	code := run([]string{"-upper", filepath.Join(t.TempDir(), "upper")}, strings.NewReader(input), &stdout, &stderr)
	want := capabilitiesLine + "\n" + `{"ID":1,"Miss":true}` + "\n"
	if code != 0 || stderr.Len() != 0 || stdout.String() != want {
		t.Fatalf("exit %d, stderr %q, stdout %q; want 0, nothing, %q", code, stderr.String(), stdout.String(), want)
	}
}

func TestRunRequiresUpper(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"-base", "/nonexistent"}, strings.NewReader(""), &stdout, &stderr)
	first, _, _ := strings.Cut(stderr.String(), "\n")
	if code != 2 || first != "kode-gopher-cacheprog: give -upper DIR (and optionally -base DIR) and no other arguments" || stdout.Len() != 0 {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr.String(), stdout.String())
	}
}
