package main

import (
	"errors"
	"fmt"
	"go/build"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// declined says why a program is not for the fast path; the caller builds it with go build.
type declined struct{ reason string }

func (d *declined) Error() string { return d.reason }

func decline(format string, args ...any) error {
	return &declined{fmt.Sprintf(format, args...)}
}

// localPackage is one package of the user's program.
type localPackage struct {
	importPath string
	dir        string
	main       bool
	goFiles    []string // absolute, in go build's order
	imports    []string // as written, sorted
}

// program is what the fast path builds: the user's packages in dependency order (the main
// package last) and every prebuilt package they need, directly or not.
type program struct {
	packages []*localPackage
}

// loadProgram reads the main package in root and every package of the module it imports, and
// declines anything go build would treat differently from a plain compile and link.
func loadProgram(data *Data, root string) (*program, error) {
	if err := checkModuleFiles(data, root); err != nil {
		return nil, err
	}
	ctx := build.Default
	ctx.GOROOT = data.GoRoot
	ctx.CgoEnabled = false
	loaded := map[string]*localPackage{}
	var order []*localPackage
	visiting := map[string]bool{}
	var visit func(importPath, dir string, isMain bool) error
	visit = func(importPath, dir string, isMain bool) error {
		if loaded[importPath] != nil {
			return nil
		}
		if visiting[importPath] {
			return decline("the program's packages import each other in a cycle (through %s)", importPath)
		}
		visiting[importPath] = true
		p, err := loadPackage(&ctx, data, importPath, dir, isMain)
		if err != nil {
			return err
		}
		for _, imp := range p.imports {
			if local, ok := localDir(data, root, imp); ok {
				if err := visit(imp, local, false); err != nil {
					return err
				}
				continue
			}
			if err := checkPrebuiltImport(data, imp); err != nil {
				return err
			}
		}
		loaded[importPath] = p
		order = append(order, p)
		return nil
	}
	if err := visit(data.Module, root, true); err != nil {
		return nil, err
	}
	return &program{packages: order}, nil
}

// checkModuleFiles declines a module that is not exactly the lockfile's, or that go build would
// read differently (a workspace, vendored modules, a PGO profile).
func checkModuleFiles(data *Data, root string) error {
	for name, want := range map[string]string{"go.mod": data.GoModSum, "go.sum": data.GoSumSum} {
		got, err := fileSHA256(filepath.Join(root, name))
		if err != nil || got != want {
			return decline("%s is not the curated lockfile's", name)
		}
	}
	for _, name := range []string{"go.work", "vendor", "default.pgo"} {
		if _, err := os.Lstat(filepath.Join(root, name)); err == nil {
			return decline("the program has %s, which go build reads", name)
		}
	}
	return nil
}

func loadPackage(ctx *build.Context, data *Data, importPath, dir string, isMain bool) (*localPackage, error) {
	bp, err := ctx.ImportDir(dir, 0)
	if err != nil {
		var noGo *build.NoGoError
		if errors.As(err, &noGo) && bp != nil && len(bp.IgnoredGoFiles) > 0 {
			return nil, decline("package %s has files that build constraints or cgo exclude", importPath)
		}
		if errors.As(err, &noGo) {
			return nil, decline("package %s has no Go files to build", importPath)
		}
		return nil, decline("package %s: %v", importPath, err)
	}
	if isMain && bp.Name != "main" {
		return nil, decline("the root package is %s, not main", bp.Name)
	}
	if !isMain && bp.Name == "main" {
		return nil, decline("package %s is a main package", importPath)
	}
	if other := nonGoFiles(bp); other != "" {
		return nil, decline("package %s has %s files", importPath, other)
	}
	if len(bp.IgnoredGoFiles) > 0 || len(bp.InvalidGoFiles) > 0 || len(bp.IgnoredOtherFiles) > 0 {
		return nil, decline("package %s has files that build constraints or cgo exclude", importPath)
	}
	if len(bp.EmbedPatterns) > 0 {
		return nil, decline("package %s embeds files (//go:embed)", importPath)
	}
	for _, d := range bp.Directives {
		if strings.HasPrefix(d.Text, "//go:debug") {
			return nil, decline("package %s has a //go:debug directive", importPath)
		}
	}
	p := &localPackage{importPath: importPath, dir: dir, main: isMain, imports: bp.Imports}
	for _, f := range bp.GoFiles {
		p.goFiles = append(p.goFiles, filepath.Join(dir, f))
	}
	sort.Strings(p.imports)
	return p, nil
}

func nonGoFiles(bp *build.Package) string {
	for _, kind := range []struct {
		name  string
		files []string
	}{
		{"cgo", bp.CgoFiles}, {"C", bp.CFiles}, {"C++", bp.CXXFiles}, {"Objective-C", bp.MFiles},
		{"header", bp.HFiles}, {"Fortran", bp.FFiles}, {"assembly", bp.SFiles}, {"SWIG", bp.SwigFiles},
		{"SWIG C++", bp.SwigCXXFiles}, {"syso", bp.SysoFiles},
	} {
		if len(kind.files) > 0 {
			return kind.name
		}
	}
	return ""
}

// localDir maps an import of the program's own module to its folder.
func localDir(data *Data, root, importPath string) (string, bool) {
	rel, ok := strings.CutPrefix(importPath, data.Module+"/")
	if !ok {
		return "", false
	}
	return filepath.Join(root, filepath.FromSlash(rel)), true
}

// checkPrebuiltImport declines an import that is not one of the prebuilt packages, or that go
// build would refuse for reasons of its own (internal, vendor, the module's root package).
func checkPrebuiltImport(data *Data, importPath string) error {
	switch {
	case importPath == "C":
		return decline("the program uses cgo")
	case importPath == data.Module:
		return decline("the program imports its own main package")
	case strings.HasPrefix(importPath, "./") || strings.HasPrefix(importPath, "../"):
		return decline("the program has a relative import (%s)", importPath)
	case strings.HasPrefix(importPath, "vendor/") || importPath == "internal" ||
		strings.HasPrefix(importPath, "internal/") || strings.Contains(importPath, "/internal/") ||
		strings.HasSuffix(importPath, "/internal"):
		return decline("the program imports %s, which go build does not allow it to", importPath)
	}
	if data.Package(importPath) == nil {
		return decline("the import %q is not among the prebuilt standard and curated packages", importPath)
	}
	return nil
}
