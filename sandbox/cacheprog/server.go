package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Serve speaks GOCACHEPROG on in/out against store until the go command sends "close" (or
// closes in between requests): it returns nil then, after every answer has been written. It
// returns a *ProtocolError, or the error writing out, when the conversation cannot go on.
//
// Requests are read by this goroutine, in order, because a put's body follows it on the same
// stream; each put is stored before the next request is read, so a later get always sees it.
// Gets are answered from their own goroutines, since the go command pipelines requests and
// accepts answers in any order; a get may therefore also see a put read after it, which is as
// valid an answer as the miss: both describe a real build of that action.
func Serve(in io.Reader, out io.Writer, store *LayeredStore) error {
	requests := NewRequestReader(in)
	answers := newResponseWriter(out)
	var gets sync.WaitGroup
	defer gets.Wait()

	answers.send(&Response{KnownCommands: []Cmd{CmdGet, CmdPut, CmdClose}})
	for {
		if err := answers.failure(); err != nil {
			return err
		}
		req, err := requests.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch req.Command {
		case CmdGet:
			gets.Add(1)
			go func() {
				defer gets.Done()
				answers.send(answerGet(store, req))
			}()
		case CmdPut:
			res, err := answerPut(store, req, requests.Body(req))
			if err != nil {
				return err
			}
			answers.send(res)
		case CmdClose:
			gets.Wait()
			answers.send(&Response{ID: req.ID})
			return answers.failure()
		default:
			answers.send(&Response{ID: req.ID, Err: fmt.Sprintf(
				"unknown command %q: kode-gopher-cacheprog knows get, put and close", req.Command)})
		}
	}
}

func answerGet(store *LayeredStore, req *Request) *Response {
	action, err := idFromBytes("ActionID", req.ActionID)
	if err != nil {
		return &Response{ID: req.ID, Err: "get: " + err.Error()}
	}
	hit, found, err := store.Get(action)
	if err != nil {
		return &Response{ID: req.ID, Err: fmt.Sprintf("get %x: %v", action[:], err)}
	}
	if !found {
		return &Response{ID: req.ID, Miss: true}
	}
	return &Response{ID: req.ID, OutputID: hit.OutputID[:], Size: hit.Size, Time: &hit.Time, DiskPath: hit.DiskPath}
}

// answerPut stores the put and answers it; the error is only for a body that breaks the
// protocol. The body is always read to its end, so the next request can be read.
func answerPut(store *LayeredStore, req *Request, body io.Reader) (*Response, error) {
	action, actionErr := idFromBytes("ActionID", req.ActionID)
	output, outputErr := idFromBytes("OutputID", req.OutputID)
	var diskPath string
	err := errors.Join(actionErr, outputErr)
	if err == nil {
		diskPath, err = store.Put(action, output, req.BodySize, body)
	}
	if _, drainErr := io.Copy(io.Discard, body); drainErr != nil {
		return nil, drainErr
	}
	var protocolErr *ProtocolError
	if errors.As(err, &protocolErr) {
		return nil, protocolErr
	}
	if err != nil {
		return &Response{ID: req.ID, Err: fmt.Sprintf("put %x: %v", req.ActionID, err)}, nil
	}
	return &Response{ID: req.ID, DiskPath: diskPath}, nil
}

// responseWriter writes whole responses, one per line, from any goroutine.
type responseWriter struct {
	mu  sync.Mutex
	buf *bufio.Writer
	enc *json.Encoder
	err error // the first write failure; later sends are dropped
}

func newResponseWriter(out io.Writer) *responseWriter {
	buf := bufio.NewWriter(out)
	return &responseWriter{buf: buf, enc: json.NewEncoder(buf)}
}

func (w *responseWriter) send(res *Response) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return
	}
	err := w.enc.Encode(res)
	if err == nil {
		err = w.buf.Flush()
	}
	if err != nil {
		w.err = fmt.Errorf("writing the answer to request %d to the go command: %w", res.ID, err)
	}
}

func (w *responseWriter) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}
