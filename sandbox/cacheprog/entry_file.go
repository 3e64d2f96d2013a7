package main

// The go command's native on-disk cache layout (cmd/go/internal/cache/cache.go), which both
// layers use so that a base prewarmed by a plain `GOCACHE=DIR go build` is readable as is:
//
//	<dir>/<hh>/<actionhex>-a  the entry: "v1 <actionhex> <outputhex> <size> <unixnano>\n",
//	                          size and time right-aligned in 20 columns (175 bytes in all)
//	<dir>/<hh>/<outputhex>-d  the output bytes, named by their SHA-256
//
// where <hh> is the first byte of the ID in hex.

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// hashSize is the length of an action or output ID (a SHA-256).
const hashSize = 32

const (
	hexSize   = hashSize * 2
	entrySize = 2 + 1 + hexSize + 1 + hexSize + 1 + 20 + 1 + 20 + 1
)

// ID is an action ID (the cache key) or an output ID (the SHA-256 of the output).
type ID [hashSize]byte

// idFromBytes converts a protocol field to an ID; what names the field for the error.
func idFromBytes(what string, b []byte) (ID, error) {
	var id ID
	if len(b) != hashSize {
		return id, fmt.Errorf("%s has %d bytes, want %d (a SHA-256)", what, len(b), hashSize)
	}
	copy(id[:], b)
	return id, nil
}

// indexEntry is what an entry file records about one action.
type indexEntry struct {
	OutputID ID
	Size     int64
	Time     time.Time
}

func shardDir(dir string, id ID) string {
	return filepath.Join(dir, fmt.Sprintf("%02x", id[0]))
}

func entryPath(dir string, action ID) string {
	return filepath.Join(shardDir(dir, action), fmt.Sprintf("%x-a", action[:]))
}

func outputPath(dir string, output ID) string {
	return filepath.Join(shardDir(dir, output), fmt.Sprintf("%x-d", output[:]))
}

// formatEntry renders an entry file exactly as the go command writes it.
func formatEntry(action ID, e indexEntry) []byte {
	return fmt.Appendf(nil, "v1 %x %x %20d %20d\n", action[:], e.OutputID[:], e.Size, e.Time.UnixNano())
}

// parseEntry checks data the way the go command does and says why it is not a valid entry
// for action.
func parseEntry(action ID, data []byte) (indexEntry, error) {
	if len(data) != entrySize {
		return indexEntry{}, fmt.Errorf("entry has %d bytes, want %d", len(data), entrySize)
	}
	if !bytes.HasPrefix(data, []byte("v1 ")) || data[3+hexSize] != ' ' ||
		data[3+hexSize+1+hexSize] != ' ' || data[3+hexSize+1+hexSize+1+20] != ' ' ||
		data[entrySize-1] != '\n' {
		return indexEntry{}, errors.New("entry has an invalid header")
	}
	idHex := data[3 : 3+hexSize]
	outHex := data[3+hexSize+1 : 3+2*hexSize+1]
	sizeField := data[3+2*hexSize+2 : 3+2*hexSize+2+20]
	timeField := data[3+2*hexSize+2+21 : entrySize-1]
	var id ID
	if _, err := hex.Decode(id[:], idHex); err != nil {
		return indexEntry{}, fmt.Errorf("decoding action ID: %v", err)
	}
	if id != action {
		return indexEntry{}, errors.New("entry names another action ID")
	}
	var e indexEntry
	if _, err := hex.Decode(e.OutputID[:], outHex); err != nil {
		return indexEntry{}, fmt.Errorf("decoding output ID: %v", err)
	}
	size, err := parsePaddedDecimal(sizeField)
	if err != nil {
		return indexEntry{}, fmt.Errorf("invalid size: %v", err)
	}
	nanos, err := parsePaddedDecimal(timeField)
	if err != nil {
		return indexEntry{}, fmt.Errorf("invalid timestamp: %v", err)
	}
	e.Size = size
	e.Time = time.Unix(0, nanos)
	return e, nil
}

// parsePaddedDecimal parses a non-negative number right-aligned with spaces.
func parsePaddedDecimal(field []byte) (int64, error) {
	n, err := strconv.ParseInt(string(bytes.TrimLeft(field, " ")), 10, 64)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, fmt.Errorf("%d is negative", n)
	}
	return n, nil
}

// readEntry reads the entry for action in the cache at dir. A missing or malformed entry is
// reported as found == false; err is only for I/O failures other than "does not exist".
func readEntry(dir string, action ID) (e indexEntry, found bool, err error) {
	f, err := os.Open(entryPath(dir, action))
	if errors.Is(err, os.ErrNotExist) {
		return indexEntry{}, false, nil
	}
	if err != nil {
		return indexEntry{}, false, err
	}
	defer f.Close()
	data := make([]byte, entrySize+1) // +1 to notice a file that is too long
	n, err := io.ReadFull(f, data)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return indexEntry{}, false, fmt.Errorf("reading %s: %w", f.Name(), err)
	}
	e, err = parseEntry(action, data[:n])
	if err != nil {
		return indexEntry{}, false, nil // the go command treats a malformed entry as a miss too
	}
	return e, true, nil
}
