package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// runPrepare computes the data in the lockfile's folder (the current directory), with the
// environment and GOCACHE of the prewarm that has just filled the base cache, and writes it to
// -out (through a temporary file, so a reader never sees half of it).
func runPrepare(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet(programName+" prepare", flag.ContinueOnError)
	flags.SetOutput(stderr)
	buildFlags := flags.String("flags", "", "the build flags every build uses, as one shell word list (the compiled-go plugin's)")
	digest := flags.String("lockfile-digest", "", "the lockfile's digest (prewarm.sh digest)")
	out := flags.String("out", "", "the data file to write")
	if err := flags.Parse(args); err != nil || *buildFlags == "" || *digest == "" || *out == "" || flags.NArg() != 0 {
		usage(stderr)
		return exitUsage
	}
	words, err := splitShellWords(*buildFlags)
	if err != nil {
		fmt.Fprintf(stderr, "%s prepare: -flags: %v\n", programName, err)
		return exitUsage
	}
	data, err := prepare(".", words, *digest)
	if err == nil {
		err = writeDataFile(*out, data)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s prepare: %v\n", programName, err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %d packages for the fast build path in %s\n", programName, len(data.Packages), *out)
	return 0
}

func writeDataFile(path string, data *Data) error {
	temporary := path + ".new"
	f, err := os.Create(temporary)
	if err != nil {
		return err
	}
	if err := writeData(f, data); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %v", temporary, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(temporary, path)
}

// prepare computes the data for the lockfile module in dir.
func prepare(dir string, buildFlags []string, lockfileDigest string) (*Data, error) {
	data := &Data{LockfileDigest: lockfileDigest, Packages: map[string]*PackageData{}, ModuleDeps: map[string]string{}}
	var err error
	if data.GoModSum, err = fileSHA256(filepath.Join(dir, "go.mod")); err != nil {
		return nil, err
	}
	if data.GoSumSum, err = fileSHA256(filepath.Join(dir, "go.sum")); err != nil {
		return nil, err
	}
	env, err := goEnv(dir, "GOVERSION", "GOROOT", "GOTOOLDIR")
	if err != nil {
		return nil, err
	}
	data.GoVersion, data.GoRoot, data.ToolDir = env[0], env[1], env[2]
	if err := listPackages(dir, data, buildFlags); err != nil {
		return nil, err
	}
	if err := probeBuild(dir, data, buildFlags); err != nil {
		return nil, fmt.Errorf("reading go build's commands for a probe program: %v", err)
	}
	return data, nil
}

func fileSHA256(path string) (string, error) {
	content, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:]), nil
}

func goEnv(dir string, names ...string) ([]string, error) {
	out, err := goCommand(dir, append([]string{"env"}, names...)...)
	if err != nil {
		return nil, err
	}
	values := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(values) != len(names) {
		return nil, fmt.Errorf("go env %s printed %d lines", strings.Join(names, " "), len(values))
	}
	return values, nil
}

func goCommand(dir string, args ...string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

type listedPackage struct {
	ImportPath string
	Export     string
	Standard   bool
	Imports    []string
	Module     *struct {
		Path    string
		Version string
		Sum     string
		Replace *struct{ Path string }
	}
}

// listPackages records every package of the standard library and every dependency of the
// lockfile's packages, with its archive in the build cache: `go list -export` with the build
// flags computes the same action IDs the prewarm's builds stored, so it only looks them up.
func listPackages(dir string, data *Data, buildFlags []string) error {
	args := append([]string{"list", "-deps", "-export", "-json=ImportPath,Export,Standard,Imports,Module"},
		listFlags(buildFlags)...)
	out, err := goCommand(dir, append(args, "std", ".")...)
	if err != nil {
		return err
	}
	main, err := goCommand(dir, "list", "-m")
	if err != nil {
		return err
	}
	data.Module = strings.TrimSpace(string(main))
	decoder := json.NewDecoder(bytes.NewReader(out))
	for decoder.More() {
		var p listedPackage
		if err := decoder.Decode(&p); err != nil {
			return fmt.Errorf("go list -json: %v", err)
		}
		if p.Module != nil && p.Module.Path == data.Module {
			continue // the lockfile's own package; the user's program takes its place
		}
		if p.Export == "" && p.ImportPath != "unsafe" {
			continue // nothing to build (only tests, say): an import of it goes to go build
		}
		pkg := &PackageData{Export: p.Export, Imports: p.Imports}
		if p.Module != nil {
			if p.Module.Replace != nil {
				return fmt.Errorf("module %s is replaced (by %s); the fast path reads no replacements", p.Module.Path, p.Module.Replace.Path)
			}
			pkg.Module = p.Module.Path
			data.ModuleDeps[p.Module.Path] = "dep\t" + p.Module.Path + "\t" + p.Module.Version + "\t" + p.Module.Sum
		}
		data.Packages[p.ImportPath] = pkg
	}
	return nil
}

// listFlags keeps the build flags that change what a package compiles to (go list refuses
// -o and has no use for -ldflags).
func listFlags(buildFlags []string) []string {
	var kept []string
	for _, f := range buildFlags {
		if f == "-trimpath" || strings.HasPrefix(f, "-tags=") || strings.HasPrefix(f, "-gcflags=") {
			kept = append(kept, f)
		}
	}
	return kept
}

// probeBuild reads, from `go build -n` of a one-file program in a copy of the lockfile's module,
// the compile and link commands go build uses and the build info it gives the linker.
func probeBuild(lockfileDir string, data *Data, buildFlags []string) error {
	dir, err := os.MkdirTemp("", "kode-gopher-fastbuild-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for _, name := range []string{"go.mod", "go.sum"} {
		content, err := os.ReadFile(filepath.Join(lockfileDir, name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			return err
		}
	}
	const probe = "package main\n\nimport \"os\"\n\nfunc main() { os.Exit(0) }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(probe), 0o644); err != nil {
		return err
	}
	args := append([]string{"build", "-n"}, buildFlags...)
	cmd := exec.Command("go", append(args, "-o", filepath.Join(dir, "probe"), ".")...)
	cmd.Dir = dir
	// go build -n prints its commands on stderr.
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go build -n: %v: %s", err, out)
	}
	return parseProbe(data, string(out))
}
