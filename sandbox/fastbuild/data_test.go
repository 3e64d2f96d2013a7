package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func sampleData() *Data {
	return &Data{
		GoVersion: "go1.26.8", LockfileDigest: "abc", GoModSum: "m", GoSumSum: "s",
		Module: "kode_gopher_user", GoRoot: "/go", ToolDir: "/go/pkg/tool/linux_amd64",
		CompileFlags: []string{"-lang=go1.26", "-complete"},
		LinkFlags:    []string{"-buildmode=exe", "-s", "-w"},
		LinkEnv:      []string{"GOROOT="},
		ModinfoStart: "0w\xaf\f\x92t\b\x02A\xe1\xc1\a\xe6\xd6\x18\xe6",
		ModinfoEnd:   "\xf92C1\x86\x18 r\x00\x82B\x10A\x16\xd8\xf2",
		ModinfoHead:  []string{"path\tkode_gopher_user", "mod\tkode_gopher_user\t(devel)\t"},
		ModinfoBuild: []string{"build\t-buildmode=exe", "build\tGOOS=linux"},
		Packages: map[string]*PackageData{
			"fmt":      {Export: "/cache/aa/fmt-d", Imports: []string{"errors", "os"}},
			"errors":   {Export: "/cache/bb/errors-d"},
			"os":       {Export: "/cache/cc/os-d", Imports: []string{"errors"}},
			"unsafe":   {},
			"ex.com/m": {Export: "/cache/dd/m-d", Module: "ex.com/m", Imports: []string{"fmt"}},
		},
		ModuleDeps: map[string]string{"ex.com/m": "dep\tex.com/m\tv1.0.0\th1:x="},
	}
}

func TestDataRoundTrip(t *testing.T) {
	want := sampleData()
	path := filepath.Join(t.TempDir(), "data")
	if err := writeDataFile(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := readData(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Packages) != 0 {
		t.Errorf("readData parsed %d package lines before they were asked for", len(got.Packages))
	}
	if got.Package("not/there") != nil {
		t.Error("a package the file does not list was found")
	}
	for path := range want.Packages {
		got.Package(path)
	}
	got.packageLines = nil
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back\n%#v\nwant\n%#v", got, want)
	}
}

func TestDataOfAnotherFormatOrCutShortIsRefused(t *testing.T) {
	var full bytes.Buffer
	if err := writeData(&full, sampleData()); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cases := map[string]string{
		"another format": strings.Replace(full.String(), fmt.Sprintf("data %d", dataFormat), "data 999", 1),
		"cut short":      strings.TrimSuffix(full.String(), "end\n"),
		"empty":          "",
		"malformed":      strings.Replace(full.String(), "pkg\tfmt\t", "pkg\tfmt\t\t\t", 1),
	}
	for name, content := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		os.WriteFile(path, []byte(content), 0o644)
		if _, err := readData(path); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
}

// The daemon's base-cache stamp names the data format, so a kode-gopher-fastbuild with a new
// format makes the daemon prewarm (and prepare) again.
func TestBaseCacheStampNamesTheDataFormat(t *testing.T) {
	source, err := os.ReadFile("../../daemon/gocache/base_cache.cpp")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("fastbuild data v%d", dataFormat)
	if !strings.Contains(string(source), want) {
		t.Fatalf("daemon/gocache/base_cache.cpp's stamp does not say %q: bump both together", want)
	}
}
