package main

// Test fixtures: native cache entries written the way the go command writes them, and a
// byte-for-byte snapshot of a directory tree to prove the base layer is never touched.

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

func testID(name string) ID { return ID(sha256.Sum256([]byte(name))) }

// putNative stores body for action in dir exactly as cmd/go/internal/cache does (independently
// of formatEntry, so a mistake there cannot hide here). It returns the output's ID and path.
func putNative(t *testing.T, dir string, action ID, body string, when time.Time) (ID, string) {
	t.Helper()
	output := ID(sha256.Sum256([]byte(body)))
	outPath := filepath.Join(dir, fmt.Sprintf("%02x", output[0]), fmt.Sprintf("%x-d", output[:]))
	entry := fmt.Sprintf("v1 %x %x %20d %20d\n", action[:], output[:], len(body), when.UnixNano())
	writeTestFile(t, outPath, body)
	writeTestFile(t, filepath.Join(dir, fmt.Sprintf("%02x", action[0]), fmt.Sprintf("%x-a", action[:])), entry)
	return output, outPath
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o666); err != nil {
		t.Fatal(err)
	}
}

// makeReadOnly turns dir's tree into what the sandbox's read-only bind mount of a base layer
// looks like: 0555 directories, 0444 files, all dated long ago (so that a go-command-style
// "mark as used" touch would show up in a snapshot). Write access comes back when the test ends
// so that the TempDir can be removed. Tests may run as root, which ignores the modes: the
// snapshot comparison is what proves the base is untouched.
func makeReadOnly(t *testing.T, dir string) {
	t.Helper()
	longAgo := time.Date(2023, 11, 14, 12, 0, 0, 0, time.UTC)
	walkTree(t, dir, func(path string, d fs.DirEntry) error {
		mode := fs.FileMode(0o444)
		if d.IsDir() {
			mode = 0o555
		}
		if err := os.Chtimes(path, longAgo, longAgo); err != nil {
			return err
		}
		return os.Chmod(path, mode)
	})
	t.Cleanup(func() {
		walkTree(t, dir, func(path string, d fs.DirEntry) error {
			if d.IsDir() {
				return os.Chmod(path, 0o755)
			}
			return os.Chmod(path, 0o644)
		})
	})
}

func walkTree(t *testing.T, root string, visit func(path string, d fs.DirEntry) error) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return visit(path, d)
	})
	if err != nil {
		t.Fatalf("walking %s: %v", root, err)
	}
}

// treeSnapshot maps each path under a root to its type, mode, size, mtime and content hash.
type treeSnapshot map[string]string

func snapshotTree(t *testing.T, root string) treeSnapshot {
	t.Helper()
	snap := treeSnapshot{}
	walkTree(t, root, func(path string, d fs.DirEntry) error {
		info, err := d.Info()
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("%v size=%d mtime=%d", info.Mode(), info.Size(), info.ModTime().UnixNano())
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			desc += fmt.Sprintf(" sha256=%x", sha256.Sum256(data))
		}
		snap[path] = desc
		return nil
	})
	return snap
}

// requireUnchanged fails the test with every difference between two snapshots.
func requireUnchanged(t *testing.T, what string, before, after treeSnapshot) {
	t.Helper()
	var diffs []string
	for path, desc := range before {
		if now, ok := after[path]; !ok {
			diffs = append(diffs, "removed "+path)
		} else if now != desc {
			diffs = append(diffs, fmt.Sprintf("changed %s: %s -> %s", path, desc, now))
		}
	}
	for path := range after {
		if _, ok := before[path]; !ok {
			diffs = append(diffs, "added "+path)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Fatalf("%s changed:\n%s", what, strings.Join(diffs, "\n"))
	}
}

// countFiles counts the regular files under root whose names end in suffix.
func countFiles(t *testing.T, root, suffix string) int {
	t.Helper()
	n := 0
	walkTree(t, root, func(path string, d fs.DirEntry) error {
		if d.Type().IsRegular() && strings.HasSuffix(path, suffix) {
			n++
		}
		return nil
	})
	return n
}
