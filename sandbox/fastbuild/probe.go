package main

import (
	"fmt"
	"strconv"
	"strings"
)

// modinfoMarkerLen is the length of each marker around the build info (cmd/go's infoStart and
// infoEnd), which runtime/debug.ReadBuildInfo looks for.
const modinfoMarkerLen = 16

// parseProbe takes the compile and link commands and the build info from `go build -n` output.
func parseProbe(data *Data, output string) error {
	var compileLine, linkLine, modinfo string
	for _, line := range strings.Split(output, "\n") {
		switch {
		case strings.Contains(line, "/compile -o ") && strings.Contains(line, " -p main "):
			compileLine = line
		case strings.Contains(line, "/link -o "):
			linkLine = line
		case strings.HasPrefix(line, "modinfo "):
			modinfo = strings.TrimPrefix(line, "modinfo ")
		}
	}
	if compileLine == "" || linkLine == "" || modinfo == "" {
		return fmt.Errorf("found no compile command, link command or modinfo in:\n%s", output)
	}
	var err error
	if data.CompileFlags, err = compileFlagsOf(compileLine); err != nil {
		return err
	}
	if data.LinkEnv, data.LinkFlags, err = linkFlagsOf(linkLine); err != nil {
		return err
	}
	return parseModinfo(data, modinfo)
}

// compileFlagsOf keeps the compile flags that are the same for every package of a program: not
// the output, the package path, the trim rewrites, the build ID, the import config or the
// files, and not -c (the backend's concurrency, which changes no output).
func compileFlagsOf(line string) ([]string, error) {
	words, err := splitShellWords(line)
	if err != nil {
		return nil, fmt.Errorf("compile command: %v", err)
	}
	var kept []string
	for i := 1; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "-o" || w == "-trimpath" || w == "-p" || w == "-buildid" || w == "-importcfg":
			i++
		case w == "-pack" || strings.HasPrefix(w, "-c="):
		case !strings.HasPrefix(w, "-") && strings.HasSuffix(w, ".go"):
		default:
			kept = append(kept, w)
		}
	}
	return kept, nil
}

// linkFlagsOf splits `VAR=value ... link -o OUT -importcfg CFG flags... ARCHIVE` into the
// environment and the flags that do not name this build's files.
func linkFlagsOf(line string) (env, flags []string, err error) {
	words, err := splitShellWords(line)
	if err != nil {
		return nil, nil, fmt.Errorf("link command: %v", err)
	}
	tool := 0
	for tool < len(words) && !strings.HasSuffix(words[tool], "/link") {
		if !strings.Contains(words[tool], "=") {
			return nil, nil, fmt.Errorf("link command: unexpected word %q before the linker", words[tool])
		}
		env = append(env, words[tool])
		tool++
	}
	if tool+1 >= len(words) {
		return nil, nil, fmt.Errorf("link command has no arguments: %s", line)
	}
	args := words[tool+1 : len(words)-1] // the last word is the main package's archive
	for i := 0; i < len(args); i++ {
		switch w := args[i]; {
		case w == "-o" || w == "-importcfg":
			i++
		case strings.HasPrefix(w, "-buildid="):
		default:
			flags = append(flags, w)
		}
	}
	return env, flags, nil
}

// parseModinfo splits the probe's build info into the lines every program shares (path, mod,
// build settings); a program adds its own dep lines between them.
func parseModinfo(data *Data, quoted string) error {
	info, err := strconv.Unquote(quoted)
	if err != nil {
		return fmt.Errorf("modinfo %s: %v", quoted, err)
	}
	if len(info) < 2*modinfoMarkerLen {
		return fmt.Errorf("modinfo %q is shorter than its markers", info)
	}
	data.ModinfoStart = info[:modinfoMarkerLen]
	data.ModinfoEnd = info[len(info)-modinfoMarkerLen:]
	body := strings.TrimSuffix(info[modinfoMarkerLen:len(info)-modinfoMarkerLen], "\n")
	for _, line := range strings.Split(body, "\n") {
		switch key, _, _ := strings.Cut(line, "\t"); key {
		case "path", "mod":
			data.ModinfoHead = append(data.ModinfoHead, line)
		case "build":
			data.ModinfoBuild = append(data.ModinfoBuild, line)
		default:
			return fmt.Errorf("the probe's build info has a %q line, which the fast path does not know how to vary: %q", key, line)
		}
	}
	return nil
}

// splitShellWords splits a command line as go build -n prints it (and as a POSIX shell would
// for these cases): words separated by blanks, '...' taken literally, "..." with \ escapes.
func splitShellWords(line string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unterminated ' in %s", line)
			}
			word.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
				}
				word.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, fmt.Errorf("unterminated \" in %s", line)
			}
			inWord = true
		case c == '\\' && i+1 < len(line):
			i++
			word.WriteByte(line[i])
			inWord = true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}
