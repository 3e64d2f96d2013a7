// Command extractsyms writes the yaegi symbol tables of the curated packages (the blank imports
// of sandbox/lockfile/curated.go) into the runner's staged package main, at build time, so that
// they always match the lockfile's versions. Packages are loaded from go's export data (one
// `go list -export -deps`; patches/0003 lets the extractor take that importer). A package yaegi's
// extractor cannot handle is skipped and listed, with the reason, in curated_unavailable.go
// (docs/runtimes.md lists them).
//
//	go run ./internal/extractsyms -curated <lockfile>/curated.go -o <stage dir>
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"go/importer"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/traefik/yaegi/extract"
)

func main() {
	curated := flag.String("curated", "", "the lockfile's curated.go")
	out := flag.String("o", ".", "folder of the package main to write into")
	flag.Parse()
	if err := run(*curated, *out); err != nil {
		fmt.Fprintln(os.Stderr, "extractsyms:", err)
		os.Exit(1)
	}
}

func run(curatedFile, out string) error {
	packages, err := curatedPackages(curatedFile)
	if err != nil {
		return err
	}
	packages = append(packages, companionPackages...)
	exports, err := exportData(packages)
	if err != nil {
		return err
	}
	ext := extract.Extractor{Dest: "main", Importer: importer.ForCompiler(token.NewFileSet(), "gc",
		func(path string) (io.ReadCloser, error) {
			file, ok := exports[path]
			if !ok {
				return nil, fmt.Errorf("no export data for %s", path)
			}
			return os.Open(file)
		})}
	unavailable := map[string]string{}
	var available []string
	for _, pkg := range packages {
		if why, ok := unextractable[pkg]; ok {
			unavailable[pkg] = why
			continue
		}
		var buf bytes.Buffer
		if _, err := ext.Extract(pkg, "", &buf); err != nil {
			unavailable[pkg] = firstLine(err.Error())
			continue
		}
		// The generated code fills a map named Symbols; the runner's is curatedSymbols.
		src := strings.ReplaceAll(buf.String(), "\tSymbols[", "\tcuratedSymbols[")
		trimmed, lost, err := dropInternalWrappers([]byte(src))
		if err != nil {
			return fmt.Errorf("%s: reading its generated symbol table: %w", pkg, err)
		}
		for _, name := range lost {
			fmt.Fprintf(os.Stderr, "extractsyms: %s.%s cannot be implemented by interpreted types (its wrapper would name another module's internal package, or two packages of one name)\n", pkg, name)
		}
		src = string(trimmed)
		if formatted, err := format.Source([]byte(src)); err == nil {
			src = string(formatted)
		}
		// Only kode-gopher-yaegi-cloud links the curated packages (their package
		// initialization alone costs tens of milliseconds); see cloud_runner.go.
		src = "//go:build " + curatedBuildTag + "\n\n" + src
		name := "curated_" + strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(pkg) + ".go"
		available = append(available, pkg)
		if err := os.WriteFile(filepath.Join(out, name), []byte(src), 0o644); err != nil {
			return err
		}
	}
	return writeUnavailable(out, unavailable, available)
}

// curatedBuildTag selects the symbol tables of the curated packages (cloud_runner.go).
const curatedBuildTag = "kg_curated"

// curatedPackages reads the blank imports of curated.go.
func curatedPackages(file string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
	if err != nil {
		return nil, fmt.Errorf("reading the curated packages: %w", err)
	}
	var out []string
	for _, spec := range f.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		out = append(out, path)
	}
	return out, nil
}

// companionPackages are not curated themselves but come with the curated ones (same modules,
// same lockfile versions) and are what ordinary code around them needs: the storage and
// BigQuery iterators end with iterator.Done, Kubernetes code names core/v1 types, errors and
// the dynamic client's unstructured objects and resources.
var companionPackages = []string{
	"google.golang.org/api/iterator",
	"google.golang.org/api/googleapi",
	"k8s.io/api/core/v1",
	"k8s.io/apimachinery/pkg/api/errors",
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured",
	"k8s.io/apimachinery/pkg/runtime/schema",
}

// unextractable: curated packages whose extracted table does not build, and why (found when
// the lockfile changed; the runner's build fails until a new one is listed here).
var unextractable = map[string]string{}

// exportData maps every package the curated ones depend on to its export data file.
func exportData(packages []string) (map[string]string, error) {
	args := append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}, packages...)
	cmd := exec.Command("go", args...)
	cmd.Stderr = os.Stderr
	output, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export of the curated packages: %w", err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(output)), "\n") {
		if path, file, ok := strings.Cut(line, "\t"); ok && file != "" {
			out[path] = file
		}
	}
	return out, nil
}

func writeUnavailable(out string, unavailable map[string]string, available []string) error {
	var paths []string
	for p := range unavailable {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	b.WriteString("// Code generated by internal/extractsyms. DO NOT EDIT.\n\npackage main\n\n")
	b.WriteString("// The curated packages without a symbol table, and why.\nfunc init() {\n")
	for _, p := range paths {
		fmt.Fprintf(&b, "\tcuratedUnavailable[%q] = %q\n", p, unavailable[p])
	}
	b.WriteString("\n\t// The packages kode-gopher-yaegi-cloud has symbol tables for.\n")
	for _, p := range available {
		fmt.Fprintf(&b, "\tcuratedAvailable[%q] = true\n", p)
	}
	b.WriteString("}\n")
	return os.WriteFile(filepath.Join(out, "curated_unavailable.go"), []byte(b.String()), 0o644)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
