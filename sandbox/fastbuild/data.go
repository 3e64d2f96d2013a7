package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"unsafe"
)

// dataFormat is the version of the file prepare writes. Bump it with the base cache's stamp
// (daemon/gocache/base_cache.cpp says "fastbuild data v<N>"), so a daemon that brings a new
// kode-gopher-fastbuild also rebuilds the data; data_test.go checks the two agree.
const dataFormat = 1

const dataHeader = "kode-gopher-fastbuild data"

// Data is what prepare computes once per toolchain and lockfile: what `go build` would work out
// on every call. Export paths point into the prewarmed base cache as sandboxes see it.
type Data struct {
	GoVersion      string   // "go1.26.8"
	LockfileDigest string   // the daemon's lockfile digest (prewarm.sh digest)
	GoModSum       string   // sha256 of the lockfile's go.mod
	GoSumSum       string   // sha256 of the lockfile's go.sum
	Module         string   // the lockfile's module path: kode_gopher_user
	GoRoot         string   // GOROOT: the compiler and linker are under pkg/tool
	ToolDir        string   // GOROOT/pkg/tool/GOOS_GOARCH
	CompileFlags   []string // go build's compile flags that are the same for every user package
	LinkFlags      []string // go build's link flags but -o, -importcfg, -buildid and the archive
	LinkEnv        []string // what go build sets in the linker's environment (GOROOT=)
	ModinfoStart   string   // the markers around the build info the linker embeds
	ModinfoEnd     string
	ModinfoHead    []string                // the build info's path and mod lines
	ModinfoBuild   []string                // its build lines (flags, GOOS, ...)
	Packages       map[string]*PackageData // prepare's; after readData, those Package parsed
	packageLines   map[string]string       // after readData: import path → its line's other fields
	ModuleDeps     map[string]string       // module path → its build info "dep" line(s)
}

// PackageData is one prebuilt package (standard library or curated).
type PackageData struct {
	Export  string   // its archive in the base cache; "" for unsafe
	Module  string   // its module; "" for the standard library
	Imports []string // resolved import paths (vendored ones included)
}

func writeData(w io.Writer, d *Data) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "%s %d\n", dataHeader, dataFormat)
	line := func(key string, values ...string) {
		b.WriteString(key)
		for _, v := range values {
			b.WriteByte('\t')
			b.WriteString(strconv.Quote(v))
		}
		b.WriteByte('\n')
	}
	line("go", d.GoVersion)
	line("lockfile", d.LockfileDigest)
	line("gomod", d.GoModSum)
	line("gosum", d.GoSumSum)
	line("module", d.Module)
	line("goroot", d.GoRoot)
	line("tooldir", d.ToolDir)
	line("compile", d.CompileFlags...)
	line("link", d.LinkFlags...)
	line("linkenv", d.LinkEnv...)
	line("modinfo-start", d.ModinfoStart)
	line("modinfo-end", d.ModinfoEnd)
	line("modinfo-head", d.ModinfoHead...)
	line("modinfo-build", d.ModinfoBuild...)
	for _, path := range sortedKeys(d.ModuleDeps) {
		line("mod", path, d.ModuleDeps[path])
	}
	// Packages take most of the file: plain tab-separated fields (import and file paths hold
	// no tabs or newlines), imports joined by commas, so reading it costs a millisecond.
	for _, path := range sortedKeys(d.Packages) {
		p := d.Packages[path]
		fmt.Fprintf(b, "pkg\t%s\t%s\t%s\t%s\n", path, p.Export, p.Module, strings.Join(p.Imports, ","))
	}
	b.WriteString("end\n")
	return b.Flush()
}

// readData reads a file writeData wrote; a file of another format is an error that says so.
// Each package's line is kept as it is until Package asks for it: a program needs tens of the
// file's packages, and parsing all of them cost more than the rest of the fast path's own work
// (bench/README.md, "Issue 27: the compiled floor").
func readData(path string) (*Data, error) {
	content, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	// The file's bytes are never changed, so the text can share them rather than copy them (a
	// copy of the ~450 KB is a tenth of the fast path's own time; the package lines keep
	// pointing into it).
	text := unsafe.String(unsafe.SliceData(content), len(content))
	header, text, _ := strings.Cut(text, "\n")
	if header == "" {
		return nil, fmt.Errorf("%s is empty", path)
	}
	if want := fmt.Sprintf("%s %d", dataHeader, dataFormat); header != want {
		return nil, fmt.Errorf("%s is %q, this %s reads %q: run `kode-gopherd --prewarm` to compute it again", path, header, programName, want)
	}
	d := &Data{Packages: map[string]*PackageData{}, ModuleDeps: map[string]string{}, packageLines: map[string]string{}}
	complete := false
	for text != "" {
		var line string
		line, text, _ = strings.Cut(text, "\n")
		if line == "end" {
			complete = true
			break
		}
		key, rest, _ := strings.Cut(line, "\t")
		if key == "pkg" {
			importPath, fields, _ := strings.Cut(rest, "\t")
			if strings.Count(fields, "\t") != 2 {
				return nil, fmt.Errorf("%s: malformed package line %q", path, line)
			}
			d.packageLines[importPath] = fields
			continue
		}
		values, err := unquoteFields(rest)
		if err != nil {
			return nil, fmt.Errorf("%s: line %q: %v", path, key, err)
		}
		if err := d.set(key, values); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
	}
	if !complete {
		return nil, fmt.Errorf("%s is cut short (no end line): run `kode-gopherd --prewarm` to compute it again", path)
	}
	return d, nil
}

// Package is the prebuilt package of that import path; nil when there is none.
func (d *Data) Package(importPath string) *PackageData {
	if p := d.Packages[importPath]; p != nil {
		return p
	}
	fields, ok := d.packageLines[importPath]
	if !ok {
		return nil
	}
	export, rest, _ := strings.Cut(fields, "\t")
	module, imports, _ := strings.Cut(rest, "\t")
	p := &PackageData{Export: export, Module: module}
	if imports != "" {
		p.Imports = strings.Split(imports, ",")
	}
	d.Packages[importPath] = p
	return p
}

func (d *Data) set(key string, values []string) error {
	one := func(target *string) error {
		if len(values) != 1 {
			return fmt.Errorf("%s wants one value, has %d", key, len(values))
		}
		*target = values[0]
		return nil
	}
	switch key {
	case "go":
		return one(&d.GoVersion)
	case "lockfile":
		return one(&d.LockfileDigest)
	case "gomod":
		return one(&d.GoModSum)
	case "gosum":
		return one(&d.GoSumSum)
	case "module":
		return one(&d.Module)
	case "goroot":
		return one(&d.GoRoot)
	case "tooldir":
		return one(&d.ToolDir)
	case "compile":
		d.CompileFlags = values
	case "link":
		d.LinkFlags = values
	case "linkenv":
		d.LinkEnv = values
	case "modinfo-start":
		return one(&d.ModinfoStart)
	case "modinfo-end":
		return one(&d.ModinfoEnd)
	case "modinfo-head":
		d.ModinfoHead = values
	case "modinfo-build":
		d.ModinfoBuild = values
	case "mod":
		if len(values) != 2 {
			return fmt.Errorf("mod wants a path and a line, has %d values", len(values))
		}
		d.ModuleDeps[values[0]] = values[1]
	default:
		return fmt.Errorf("unknown key %q", key)
	}
	return nil
}

func unquoteFields(rest string) ([]string, error) {
	if rest == "" {
		return nil, nil
	}
	var values []string
	for _, field := range strings.Split(rest, "\t") {
		v, err := strconv.Unquote(field)
		if err != nil {
			return nil, fmt.Errorf("field %s: %v", field, err)
		}
		values = append(values, v)
	}
	return values, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
