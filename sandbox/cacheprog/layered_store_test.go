package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var (
	putTime  = time.Unix(1_750_000_000, 123_456_789)
	baseTime = time.Unix(1_700_000_000, 42)
)

// openTestStore returns a store over a fresh base (filled by fill, then made read-only) and a
// not yet existing upper layer, plus a check that the base ends the test byte-for-byte as it
// was when fill returned.
func openTestStore(t *testing.T, fill func(base string)) (store *LayeredStore, base, upper string) {
	t.Helper()
	root := t.TempDir()
	base, upper = filepath.Join(root, "base"), filepath.Join(root, "upper")
	if err := os.Mkdir(base, 0o777); err != nil {
		t.Fatal(err)
	}
	if fill != nil {
		fill(base)
	}
	makeReadOnly(t, base)
	before := snapshotTree(t, base)
	t.Cleanup(func() { requireUnchanged(t, "base layer", before, snapshotTree(t, base)) })
	store, err := OpenLayeredStore(base, upper)
	if err != nil {
		t.Fatal(err)
	}
	store.now = func() time.Time { return putTime }
	return store, base, upper
}

func mustGet(t *testing.T, store *LayeredStore, action ID) (Hit, bool) {
	t.Helper()
	hit, found, err := store.Get(action)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	return hit, found
}

func TestGetMissesWhenNothingIsStored(t *testing.T) {
	store, _, upper := openTestStore(t, nil)
	if _, found := mustGet(t, store, testID("nothing")); found {
		t.Fatal("Get found an entry in empty layers")
	}
	if info, err := os.Stat(upper); err != nil || !info.IsDir() {
		t.Fatalf("upper layer was not created: %v", err)
	}
}

func TestGetWithoutBaseDirectoryUsesUpperOnly(t *testing.T) {
	root := t.TempDir()
	store, err := OpenLayeredStore(filepath.Join(root, "missing-base"), filepath.Join(root, "upper"))
	if err != nil {
		t.Fatal(err)
	}
	action := testID("a")
	if _, err := store.Put(action, ID(sha256.Sum256([]byte("x"))), 1, strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
	hit, found := mustGet(t, store, action)
	if !found || hit.DiskPath != outputPath(filepath.Join(root, "upper"), hit.OutputID) {
		t.Fatalf("Get = %+v, %v; want a hit in the upper layer", hit, found)
	}
}

func TestPutThenGetFromUpper(t *testing.T) {
	store, _, upper := openTestStore(t, nil)
	action, body := testID("compile fmt"), "export data"
	output := ID(sha256.Sum256([]byte(body)))

	diskPath, err := store.Put(action, output, int64(len(body)), strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	wantPath := filepath.Join(upper, fmt.Sprintf("%02x", output[0]), fmt.Sprintf("%x-d", output[:]))
	if diskPath != wantPath {
		t.Fatalf("Put DiskPath = %q, want %q", diskPath, wantPath)
	}
	if data, err := os.ReadFile(diskPath); err != nil || string(data) != body {
		t.Fatalf("output file holds %q (%v), want %q", data, err, body)
	}
	entry, err := os.ReadFile(filepath.Join(upper, fmt.Sprintf("%02x", action[0]), fmt.Sprintf("%x-a", action[:])))
	wantEntry := fmt.Sprintf("v1 %x %x %20d %20d\n", action[:], output[:], len(body), putTime.UnixNano())
	if err != nil || string(entry) != wantEntry {
		t.Fatalf("entry file = %q (%v), want %q", entry, err, wantEntry)
	}

	hit, found := mustGet(t, store, action)
	want := Hit{OutputID: output, Size: int64(len(body)), Time: putTime, DiskPath: wantPath}
	if !found || hit != want {
		t.Fatalf("Get = %+v, %v; want %+v", hit, found, want)
	}
	temps, _ := filepath.Glob(filepath.Join(upper, "*", "*.tmp-*"))
	if len(temps) != 0 {
		t.Fatalf("temporary files left behind: %v", temps)
	}
}

func TestGetFromBase(t *testing.T) {
	action := testID("compile encoding/json")
	var output ID
	var basePath string
	store, _, _ := openTestStore(t, func(base string) {
		output, basePath = putNative(t, base, action, "json export data", baseTime)
	})
	hit, found := mustGet(t, store, action)
	want := Hit{OutputID: output, Size: int64(len("json export data")), Time: baseTime, DiskPath: basePath}
	if !found || hit != want {
		t.Fatalf("Get = %+v, %v; want %+v", hit, found, want)
	}
}

func TestUpperShadowsBase(t *testing.T) {
	action := testID("compile main")
	store, _, upper := openTestStore(t, func(base string) {
		putNative(t, base, action, "old build", baseTime)
	})
	newOutput := ID(sha256.Sum256([]byte("new build")))
	if _, err := store.Put(action, newOutput, 9, strings.NewReader("new build")); err != nil {
		t.Fatal(err)
	}
	hit, found := mustGet(t, store, action)
	want := Hit{OutputID: newOutput, Size: 9, Time: putTime, DiskPath: outputPath(upper, newOutput)}
	if !found || hit != want {
		t.Fatalf("Get = %+v, %v; want %+v", hit, found, want)
	}
}

func TestMalformedEntryIsMiss(t *testing.T) {
	action := testID("action")
	output := ID(sha256.Sum256([]byte("body")))
	good := fmt.Sprintf("v1 %x %x %20d %20d\n", action[:], output[:], 4, baseTime.UnixNano())
	cases := map[string]string{
		"empty":             "",
		"truncated":         good[:len(good)-1],
		"too long":          good + "x",
		"wrong version":     "v2" + good[2:],
		"other action":      strings.Replace(good, fmt.Sprintf("%x", action[:]), fmt.Sprintf("%x", testID("other")), 1),
		"output not hex":    strings.Replace(good, fmt.Sprintf("%x", output[:]), strings.Repeat("zz", hashSize), 1),
		"negative size":     strings.Replace(good, fmt.Sprintf("%20d", 4), fmt.Sprintf("%20d", -4), 1),
		"size not a number": strings.Replace(good, fmt.Sprintf("%20d", 4), fmt.Sprintf("%20s", "4x"), 1),
		"no newline":        good[:len(good)-1] + " ",
	}
	for name, entry := range cases {
		t.Run(name, func(t *testing.T) {
			store, _, _ := openTestStore(t, func(base string) {
				writeTestFile(t, outputPath(base, output), "body")
				writeTestFile(t, entryPath(base, action), entry)
			})
			if hit, found := mustGet(t, store, action); found {
				t.Fatalf("Get found %+v for a malformed entry", hit)
			}
		})
	}
}

func TestMalformedUpperEntryFallsBackToBase(t *testing.T) {
	action := testID("action")
	var basePath string
	store, _, upper := openTestStore(t, func(base string) {
		_, basePath = putNative(t, base, action, "from base", baseTime)
	})
	writeTestFile(t, entryPath(upper, action), "garbage\n")
	if hit, found := mustGet(t, store, action); !found || hit.DiskPath != basePath {
		t.Fatalf("Get = %+v, %v; want the base's entry at %s", hit, found, basePath)
	}
}

func TestOutputSizeMismatchIsMiss(t *testing.T) {
	action := testID("action")
	store, _, _ := openTestStore(t, func(base string) {
		_, outPath := putNative(t, base, action, "ten bytes!", baseTime)
		writeTestFile(t, outPath, "nine byte")
	})
	if hit, found := mustGet(t, store, action); found {
		t.Fatalf("Get found %+v although the output file has the wrong size", hit)
	}
}

func TestMissingOrDirectoryOutputIsMiss(t *testing.T) {
	missing, directory := testID("missing"), testID("directory")
	store, _, _ := openTestStore(t, func(base string) {
		_, outPath := putNative(t, base, missing, "gone", baseTime)
		if err := os.Remove(outPath); err != nil {
			t.Fatal(err)
		}
		// `go run` caches executables as a directory holding one file; not a build output.
		_, outPath = putNative(t, base, directory, "exe", baseTime)
		if err := os.Remove(outPath); err != nil {
			t.Fatal(err)
		}
		writeTestFile(t, filepath.Join(outPath, "hello"), "exe")
	})
	for _, action := range []ID{missing, directory} {
		if hit, found := mustGet(t, store, action); found {
			t.Fatalf("Get found %+v without an output file", hit)
		}
	}
}

func TestPutReusesOutputAlreadyInBase(t *testing.T) {
	var output ID
	var basePath string
	store, _, upper := openTestStore(t, func(base string) {
		output, basePath = putNative(t, base, testID("first action"), "shared output", baseTime)
	})
	second := testID("second action")
	diskPath, err := store.Put(second, output, 13, strings.NewReader("shared output"))
	if err != nil || diskPath != basePath {
		t.Fatalf("Put = %q, %v; want the base's file %s", diskPath, err, basePath)
	}
	if n := countFiles(t, upper, "-d"); n != 0 {
		t.Fatalf("upper layer has %d output files, want 0 (the base already holds it)", n)
	}
	if hit, found := mustGet(t, store, second); !found || hit.DiskPath != basePath {
		t.Fatalf("Get = %+v, %v; want a hit at %s", hit, found, basePath)
	}
}

func TestPutSkipsRewritingExistingUpperOutput(t *testing.T) {
	store, _, _ := openTestStore(t, nil)
	output := ID(sha256.Sum256([]byte("same")))
	path, err := store.Put(testID("one"), output, 4, strings.NewReader("same"))
	if err != nil {
		t.Fatal(err)
	}
	old := time.Unix(1_600_000_000, 0)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Put(testID("two"), output, 4, strings.NewReader("same")); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || !info.ModTime().Equal(old) {
		t.Fatalf("output file was rewritten (mtime %v, %v); want it left alone", info.ModTime(), err)
	}
}

func TestPutRefusesBodyThatDoesNotMatchOutputID(t *testing.T) {
	store, _, upper := openTestStore(t, nil)
	action, claimed := testID("liar"), ID(sha256.Sum256([]byte("honest")))
	_, err := store.Put(action, claimed, 6, strings.NewReader("poison"))
	poison := sha256.Sum256([]byte("poison"))
	want := fmt.Sprintf("writing %s: body's SHA-256 is %x, not the OutputID %x", outputPath(upper, claimed), poison[:], claimed[:])
	if err == nil || err.Error() != want {
		t.Fatalf("Put error = %v, want %q", err, want)
	}
	if n := countFiles(t, upper, ""); n != 0 {
		t.Fatalf("upper layer has %d files after a refused put, want 0", n)
	}
}

func TestOpenLayeredStoreRefusesBadLayers(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file")
	writeTestFile(t, file, "not a cache")
	_, err := OpenLayeredStore(file, filepath.Join(root, "upper"))
	want := fmt.Sprintf("base layer %s is not a directory; pass the GOCACHE directory the base was prewarmed into", file)
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
	_, err = OpenLayeredStore(root, root+"/.")
	want = fmt.Sprintf("-base and -upper both name %s; the base must stay read-only, so give the upper layer its own directory", root)
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
}
