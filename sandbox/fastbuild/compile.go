package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// compilePackage runs the compiler on one package of the program, the way go build does: from
// the build's current directory, with absolute file names, the trim rewrites of -trimpath and
// an import config of the package's direct imports. It returns the compiler's output rewritten
// as go build reports it ("" when there was none) and whether the compile succeeded.
func compilePackage(data *Data, work *workDir, p *localPackage, archives map[string]string) (string, bool, error) {
	objdir, err := work.objdir(p)
	if err != nil {
		return "", false, err
	}
	var cfg strings.Builder
	cfg.WriteString("# import config\n")
	for _, imp := range p.imports {
		archive := archives[imp]
		if archive == "" {
			if prebuilt := data.Package(imp); prebuilt != nil {
				archive = prebuilt.Export
			}
		}
		if archive != "" {
			fmt.Fprintf(&cfg, "packagefile %s=%s\n", imp, archive)
		}
	}
	importcfg := filepath.Join(objdir, "importcfg")
	if err := os.WriteFile(importcfg, []byte(cfg.String()), 0o644); err != nil {
		return "", false, err
	}
	archive := filepath.Join(objdir, "_pkg_.a")
	pkgpath := p.importPath
	if p.main {
		pkgpath = "main"
	}
	args := []string{"-o", archive, "-trimpath", p.dir + "=>" + p.importPath + ";" + objdir + "=>", "-p", pkgpath}
	args = append(args, data.CompileFlags...)
	if stripsDWARF(data.LinkFlags) {
		args = append(args, "-dwarf=false")
	}
	if c := runtime.GOMAXPROCS(0); c > 1 {
		args = append(args, fmt.Sprintf("-c=%d", c))
	}
	args = append(args, "-importcfg", importcfg, "-pack")
	args = append(args, p.goFiles...)
	cmd := exec.Command(filepath.Join(data.ToolDir, "compile"), args...)
	cmd.Dir = work.cwd
	cmd.Env = toolEnvironment(work.memoryLimit)
	out, runErr := cmd.CombinedOutput()
	if runErr != nil {
		if _, exited := runErr.(*exec.ExitError); !exited {
			return "", false, fmt.Errorf("running the compiler: %v", runErr)
		}
	}
	archives[p.importPath] = archive
	return reportOutput(work, p, string(out)), runErr == nil, nil
}

// reportOutput is cmd/go's reportCmd for a compile: the work folder shown as $WORK, the
// package's folder and each folder above it shown relative to the current directory where that
// is shorter, under a "# import/path" line.
func reportOutput(work *workDir, p *localPackage, out string) string {
	if out == "" {
		return ""
	}
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	out = replacePrefix(out, work.root, "$WORK")
	for dir := p.dir; ; {
		if rel := shortPath(work.cwd, dir); rel != dir {
			out = replacePrefix(out, dir, rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "# " + p.importPath + "\n" + out
}

// shortPath is cmd/go's base.ShortPath: the path relative to cwd when that is shorter and names
// the same file.
func shortPath(cwd, path string) string {
	rel, err := filepath.Rel(cwd, path)
	if err != nil || len(rel) >= len(path) {
		return path
	}
	if !sameFile(filepath.Join(cwd, rel), path) {
		return path
	}
	return rel
}

func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return os.IsNotExist(errA) && os.IsNotExist(errB)
	}
	return os.SameFile(fa, fb)
}

// replacePrefix is cmd/go's: old is replaced only at the start of a line or after a blank.
func replacePrefix(s, old, replacement string) string {
	if !strings.Contains(s, old) {
		return s
	}
	s = strings.ReplaceAll(s, " "+old, " "+replacement)
	s = strings.ReplaceAll(s, "\n"+old, "\n"+replacement)
	s = strings.ReplaceAll(s, "\n\t"+old, "\n\t"+replacement)
	if strings.HasPrefix(s, old) {
		s = replacement + s[len(old):]
	}
	return s
}
