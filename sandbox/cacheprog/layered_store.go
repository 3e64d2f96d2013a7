package main

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// LayeredStore is a Go build cache made of a read-only lower layer (base, prewarmed once on the
// host and shared by every sandbox) and a writable upper layer private to one sandbox, both in
// the go command's native layout (entry_file.go). Lookups try the upper layer, then the base;
// writes go to the upper layer only, so nothing a sandbox builds can reach another sandbox and
// nothing is copied per sandbox. The base is never written, not even its timestamps.
//
// The Server calls Get from many goroutines and Put from its request loop; both are safe to call
// concurrently, also with other processes sharing the same upper layer (every write is a
// temporary file renamed into place).
type LayeredStore struct {
	base  string // absolute, or "" when there is no base layer
	upper string // absolute

	now     func() time.Time
	tempSeq atomic.Uint64
}

// Hit is a cache entry found by Get: the output's ID, size, time of the put, and the absolute
// path of its bytes in whichever layer holds them.
type Hit struct {
	OutputID ID
	Size     int64
	Time     time.Time
	DiskPath string
}

// OpenLayeredStore makes paths absolute, creates the upper layer if needed and checks that the
// base, when it exists, is a directory other than the upper layer. A missing base means "no
// base layer"; base may also be "".
func OpenLayeredStore(base, upper string) (*LayeredStore, error) {
	upperAbs, err := filepath.Abs(upper)
	if err != nil {
		return nil, fmt.Errorf("upper layer %q: %w", upper, err)
	}
	if err := os.MkdirAll(upperAbs, 0o777); err != nil {
		return nil, fmt.Errorf("creating the upper layer: %w; pass a writable -upper directory", err)
	}
	s := &LayeredStore{upper: upperAbs, now: time.Now}
	if base == "" {
		return s, nil
	}
	baseAbs, err := filepath.Abs(base)
	if err != nil {
		return nil, fmt.Errorf("base layer %q: %w", base, err)
	}
	baseInfo, err := os.Stat(baseAbs)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("base layer: %w", err)
	}
	if !baseInfo.IsDir() {
		return nil, fmt.Errorf("base layer %s is not a directory; pass the GOCACHE directory the base was prewarmed into", baseAbs)
	}
	if upperInfo, err := os.Stat(upperAbs); err == nil && os.SameFile(baseInfo, upperInfo) {
		return nil, fmt.Errorf("-base and -upper both name %s; the base must stay read-only, so give the upper layer its own directory", baseAbs)
	}
	s.base = baseAbs
	return s, nil
}

// layers lists the layers in lookup order.
func (s *LayeredStore) layers() []string {
	if s.base == "" {
		return []string{s.upper}
	}
	return []string{s.upper, s.base}
}

// Get finds the entry for action: the first layer whose entry is well-formed and whose output
// file (in either layer) is a regular file of the recorded size. A miss is found == false;
// err reports I/O failures other than missing files, with the path.
func (s *LayeredStore) Get(action ID) (hit Hit, found bool, err error) {
	for _, layer := range s.layers() {
		entry, ok, err := readEntry(layer, action)
		if err != nil {
			return Hit{}, false, err
		}
		if !ok {
			continue
		}
		path, ok, err := s.findOutput(entry.OutputID, entry.Size)
		if err != nil {
			return Hit{}, false, err
		}
		if ok {
			return Hit{OutputID: entry.OutputID, Size: entry.Size, Time: entry.Time, DiskPath: path}, true, nil
		}
	}
	return Hit{}, false, nil
}

// findOutput returns the path of the output file with the given ID and size, upper layer first.
// A directory (the native cache keeps `go run` executables that way) does not count.
func (s *LayeredStore) findOutput(output ID, size int64) (path string, found bool, err error) {
	for _, layer := range s.layers() {
		path := outputPath(layer, output)
		info, err := os.Stat(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", false, err
		}
		if info.Mode().IsRegular() && info.Size() == size {
			return path, true, nil
		}
	}
	return "", false, nil
}

// Put reads body (size bytes whose SHA-256 must be output) to its end, stores it as the output
// file in the upper layer unless either layer already has that file, then records the entry for
// action in the upper layer. It returns the path of the output file. A body that does not match
// output is refused, since every later reader trusts the name. Errors name the file involved;
// body's own read errors are returned wrapped, so the caller can tell them apart.
func (s *LayeredStore) Put(action, output ID, size int64, body io.Reader) (diskPath string, err error) {
	diskPath, exists, err := s.findOutput(output, size)
	if err != nil {
		return "", err
	}
	if exists {
		err = checkBody(body, output, size, io.Discard)
	} else {
		diskPath = outputPath(s.upper, output)
		err = s.writeAtomically(diskPath, func(f *os.File) error {
			return checkBody(body, output, size, f)
		})
	}
	if err != nil {
		return "", err
	}
	entry := formatEntry(action, indexEntry{OutputID: output, Size: size, Time: s.now()})
	err = s.writeAtomically(entryPath(s.upper, action), func(f *os.File) error {
		_, err := f.Write(entry)
		return err
	})
	if err != nil {
		return "", err
	}
	return diskPath, nil
}

// checkBody copies body to dst and checks its length and SHA-256.
func checkBody(body io.Reader, output ID, size int64, dst io.Writer) error {
	hash := sha256.New()
	n, err := io.Copy(io.MultiWriter(dst, hash), body)
	if err != nil {
		return err
	}
	if n != size {
		return fmt.Errorf("body has %d bytes but the request says %d", n, size)
	}
	if got := ID(hash.Sum(nil)); got != output {
		return fmt.Errorf("body's SHA-256 is %x, not the OutputID %x", got[:], output[:])
	}
	return nil
}

// writeAtomically creates path's directory if needed, lets fill write a temporary file next to
// path and renames it over path, so no reader ever sees a partial file.
func (s *LayeredStore) writeAtomically(path string, fill func(*os.File) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	temp := fmt.Sprintf("%s.tmp-%d-%d", path, os.Getpid(), s.tempSeq.Add(1))
	f, err := os.OpenFile(temp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	err = fill(f)
	if closeErr := f.Close(); err == nil && closeErr != nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(temp, path)
	}
	if err != nil {
		os.Remove(temp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
