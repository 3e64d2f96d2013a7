package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// scrubInitialEnvironment overwrites the value of variable name in the process's initial
// environment block, the memory /proc/self/environ reads: os.Unsetenv only changes Go's copy, so
// the program the runner interprets could otherwise read the token there. Best effort (the
// program shares the runner's memory and could still search it): the plugin trusts no runner
// line that comes after `started` for its verdicts anyway (docs/security.md).
func scrubInitialEnvironment(name string) {
	start, end, ok := environBlock()
	if !ok {
		return
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return
	}
	defer mem.Close()
	block := make([]byte, end-start)
	if n, err := mem.ReadAt(block, start); err != nil || n != len(block) {
		return
	}
	key := []byte(name + "=")
	for offset := 0; offset < len(block); {
		entry := block[offset:]
		if i := bytes.IndexByte(entry, 0); i >= 0 {
			entry = entry[:i]
		}
		if bytes.HasPrefix(entry, key) {
			value := len(entry) - len(key)
			mem.WriteAt(make([]byte, value), start+int64(offset+len(key)))
		}
		offset += len(entry) + 1
	}
}

// environBlock reads env_start and env_end, fields 50 and 51 of /proc/self/stat (proc(5)).
func environBlock() (start, end int64, ok bool) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, false
	}
	// Fields after the command name, which is in parentheses and may hold spaces: the first of
	// them is field 3.
	closing := bytes.LastIndexByte(stat, ')')
	if closing < 0 {
		return 0, 0, false
	}
	fields := strings.Fields(string(stat[closing+1:]))
	if len(fields) < 51-2 {
		return 0, 0, false
	}
	start, err1 := strconv.ParseInt(fields[50-3], 10, 64)
	end, err2 := strconv.ParseInt(fields[51-3], 10, 64)
	if err1 != nil || err2 != nil || start <= 0 || end <= start || end-start > 1<<22 {
		return 0, 0, false
	}
	return start, end, true
}
