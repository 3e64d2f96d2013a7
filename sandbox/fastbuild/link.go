package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// linkProgram links the main package's archive with everything it imports, directly or not,
// into out, with the build info go build would embed.
func linkProgram(data *Data, work *workDir, prog *program, archives map[string]string, out string) error {
	mainPkg := prog.packages[len(prog.packages)-1]
	prebuilt := prebuiltClosure(data, prog)
	var cfg strings.Builder
	cfg.WriteString("# import config\n")
	for _, p := range prog.packages {
		fmt.Fprintf(&cfg, "packagefile %s=%s\n", p.importPath, archives[p.importPath])
	}
	for _, path := range prebuilt {
		if export := data.Package(path).Export; export != "" {
			fmt.Fprintf(&cfg, "packagefile %s=%s\n", path, export)
		}
	}
	fmt.Fprintf(&cfg, "modinfo %s\n", strconv.Quote(buildInfo(data, prebuilt)))
	importcfg := filepath.Join(work.root, "importcfg.link")
	if err := os.WriteFile(importcfg, []byte(cfg.String()), 0o644); err != nil {
		return err
	}
	// Linked beside the output, then renamed over it: one file system (the work folder is
	// under TMPDIR, another tmpfs), and never a half-written binary at out.
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	exe := out + ".fastbuild-link"
	defer os.Remove(exe)
	args := append([]string{"-o", exe, "-importcfg", importcfg}, data.LinkFlags...)
	args = append(args, archives[mainPkg.importPath])
	cmd := exec.Command(filepath.Join(data.ToolDir, "link"), args...)
	cmd.Dir = work.cwd
	cmd.Env = toolEnvironment(work.memoryLimit, data.LinkEnv...)
	if output, err := cmd.CombinedOutput(); err != nil {
		return decline("the linker failed (%v), go build reports it: %s", err, strings.TrimSpace(string(output)))
	}
	return os.Rename(exe, out)
}

// prebuiltClosure lists, sorted, every prebuilt package the program needs.
func prebuiltClosure(data *Data, prog *program) []string {
	// The linker loads the runtime whatever the program imports.
	seen := map[string]bool{"runtime": true}
	queue := []string{"runtime"}
	for _, p := range prog.packages {
		for _, imp := range p.imports {
			if data.Package(imp) != nil && !seen[imp] {
				seen[imp] = true
				queue = append(queue, imp)
			}
		}
	}
	for len(queue) > 0 {
		path := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, imp := range data.Package(path).Imports {
			if !seen[imp] && data.Package(imp) != nil {
				seen[imp] = true
				queue = append(queue, imp)
			}
		}
	}
	return sortedKeys(seen)
}

// buildInfo is runtime/debug's build info for the program between its markers: path and mod,
// a dep line per module whose packages it links (sorted by module path), the build settings.
func buildInfo(data *Data, prebuilt []string) string {
	modules := map[string]bool{}
	for _, path := range prebuilt {
		if m := data.Package(path).Module; m != "" {
			modules[m] = true
		}
	}
	var b strings.Builder
	b.WriteString(data.ModinfoStart)
	for _, line := range data.ModinfoHead {
		b.WriteString(line + "\n")
	}
	for _, m := range sortedKeys(modules) {
		b.WriteString(data.ModuleDeps[m] + "\n")
	}
	for _, line := range data.ModinfoBuild {
		b.WriteString(line + "\n")
	}
	b.WriteString(data.ModinfoEnd)
	return b.String()
}
