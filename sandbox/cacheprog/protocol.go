package main

// The GOCACHEPROG protocol, as defined by cmd/go/internal/cacheprog (Go 1.24+) and spoken by
// cmd/go/internal/cache/prog.go: the program first writes a Response with ID 0 listing its
// KnownCommands, then answers each Request (one JSON object per line on stdin) with a Response
// (one JSON object per line on stdout), in any order. A "put" with BodySize > 0 is followed by
// its body as a JSON string of standard base64 on a line of its own.

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Cmd is a request's command.
type Cmd string

const (
	CmdGet   Cmd = "get"
	CmdPut   Cmd = "put"
	CmdClose Cmd = "close"
)

// Request mirrors cacheprog.Request without its Body, which follows on the wire.
type Request struct {
	ID       int64
	Command  Cmd
	ActionID []byte `json:",omitempty"`
	OutputID []byte `json:",omitempty"`
	BodySize int64  `json:",omitempty"`
}

// Response mirrors cacheprog.Response.
type Response struct {
	ID            int64
	Err           string     `json:",omitempty"`
	KnownCommands []Cmd      `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

// ProtocolError means the input is not the protocol (or could not be read), so the stream can
// no longer be followed: the program reports it on stderr and exits 1.
type ProtocolError struct{ msg string }

func (e *ProtocolError) Error() string { return e.msg }

func protocolErrorf(format string, args ...any) *ProtocolError {
	return &ProtocolError{msg: fmt.Sprintf(format, args...)}
}

// maxRequestLine bounds one request line; real ones are a few hundred bytes.
const maxRequestLine = 64 << 10

// RequestReader splits the go command's stdin into requests and put bodies. It is used by one
// goroutine (the Server's request loop).
type RequestReader struct {
	in *bufio.Reader
}

func NewRequestReader(in io.Reader) *RequestReader {
	return &RequestReader{in: bufio.NewReaderSize(in, maxRequestLine)}
}

// Next returns the next request, io.EOF when the input ends between requests, or a
// *ProtocolError. The body of a put must have been read to its end first.
func (r *RequestReader) Next() (*Request, error) {
	if err := skipSpace(r.in); err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, protocolErrorf("reading the next request: %v", err)
	}
	line, err := r.in.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return nil, protocolErrorf("request line longer than %d bytes (starts %.80q); is this the go command speaking GOCACHEPROG?", maxRequestLine, line)
	}
	if err != nil && err != io.EOF {
		return nil, protocolErrorf("reading the next request: %v", err)
	}
	req := new(Request)
	if err := json.Unmarshal(line, req); err != nil {
		return nil, protocolErrorf("request %.80q is not a JSON object of the GOCACHEPROG protocol: %v", bytes.TrimRight(line, "\r\n"), err)
	}
	if req.BodySize < 0 {
		return nil, protocolErrorf("request %d has a negative BodySize %d", req.ID, req.BodySize)
	}
	return req, nil
}

// Body returns the body that follows a put request. Its reader yields exactly req.BodySize
// bytes and then io.EOF, or a *ProtocolError if the body is malformed or has another length.
func (r *RequestReader) Body(req *Request) io.Reader {
	if req.BodySize == 0 {
		return eofReader{}
	}
	return &bodyReader{in: r.in, reqID: req.ID, size: req.BodySize}
}

// skipSpace consumes the whitespace between JSON values (the go command sends a blank line
// after each request).
func skipSpace(in *bufio.Reader) error {
	for {
		b, err := in.ReadByte()
		if err != nil {
			return err
		}
		if b != ' ' && b != '\t' && b != '\r' && b != '\n' {
			return in.UnreadByte()
		}
	}
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// bodyReader decodes `"<base64>"` from the input without holding the whole body in memory.
type bodyReader struct {
	in      *bufio.Reader
	reqID   int64
	size    int64
	read    int64
	decoder io.Reader // nil until the opening quote has been read
	err     error     // sticky: io.EOF or a *ProtocolError
}

func (b *bodyReader) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.decoder == nil {
		if err := b.open(); err != nil {
			b.err = err
			return 0, err
		}
	}
	n, err := b.decoder.Read(p)
	b.read += int64(n)
	switch {
	case b.read > b.size:
		b.err = protocolErrorf("put request %d: body is longer than its BodySize %d", b.reqID, b.size)
		return 0, b.err
	case err == io.EOF && b.read != b.size:
		b.err = protocolErrorf("put request %d: body has %d bytes but BodySize says %d", b.reqID, b.read, b.size)
		return 0, b.err
	case err == io.EOF:
		b.err = io.EOF
	case err != nil:
		b.err = protocolErrorf("put request %d: body is not a base64 JSON string: %v", b.reqID, err)
		return 0, b.err
	}
	return n, b.err
}

func (b *bodyReader) open() error {
	err := skipSpace(b.in)
	var first byte
	if err == nil {
		first, err = b.in.ReadByte()
	}
	if err != nil {
		return protocolErrorf("put request %d: reading its body: %v", b.reqID, unexpectedEOF(err))
	}
	if first != '"' {
		return protocolErrorf("put request %d: expected its body as a base64 JSON string, got %q", b.reqID, first)
	}
	b.decoder = base64.NewDecoder(base64.StdEncoding, &quotedReader{in: b.in})
	return nil
}

// quotedReader yields the input up to (and consumes) the next '"'.
type quotedReader struct {
	in      *bufio.Reader
	pending []byte // unread part of the last slice; valid until the next read of in
	done    bool
}

func (q *quotedReader) Read(p []byte) (int, error) {
	for len(q.pending) == 0 {
		if q.done {
			return 0, io.EOF
		}
		chunk, err := q.in.ReadSlice('"')
		switch {
		case err == nil:
			q.pending, q.done = chunk[:len(chunk)-1], true
		case errors.Is(err, bufio.ErrBufferFull):
			q.pending = chunk
		default:
			return 0, fmt.Errorf("before its closing quote: %w", unexpectedEOF(err))
		}
	}
	n := copy(p, q.pending)
	q.pending = q.pending[n:]
	return n, nil
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
