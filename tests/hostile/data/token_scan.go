// The hostile-egress suite's token scan (tests/hostile/test_hostile_egress_credentials.cpp runs
// it in a sealed call's sandbox): looks for a secret everywhere a program can, its environment,
// every file it can read (but the read-only toolchain, module and build caches the host made
// before any token), every process's environment and command line, and every readable mapping
// of its own memory. The test fills in `masked`, the secret XORed with 0x5a, and the scan
// compares byte by byte, so the program never holds the secret itself. Prints where it was
// found, and how much it looked at.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

var masked = []byte{} // the test writes the secret here, each byte XORed with 0x5a

// The control: a file holding this (unmasked) text must be found by the same walk, or the scan
// proves nothing.
var control = []byte("kode-gopher scan control: the walk reads files")

// Finds the secret's first byte with bytes.IndexByte (fast), then compares the rest byte by byte
// against the masked copy.
func holds(data []byte) bool {
	first := masked[0] ^ 0x5a
	for i := 0; i < len(data); i++ {
		k := bytes.IndexByte(data[i:], first)
		if k < 0 {
			return false
		}
		i += k
		if i+len(masked) > len(data) {
			return false
		}
		j := 1
		for j < len(masked) && data[i+j] == masked[j]^0x5a {
			j++
		}
		if j == len(masked) {
			return true
		}
	}
	return false
}

// One buffer for every read, so the scan's own memory stays small; chunks overlap by the
// secret's length, so a secret across two chunks is still found.
var buffer = make([]byte, 1<<20)

// Scans `size` bytes of r from `offset` (size < 0: to the end). Returns the bytes read and
// whether the secret was there.
func scan(r io.ReaderAt, offset, size int64) (int64, bool) {
	var done int64
	keep := 0
	for size < 0 || done < size {
		want := int64(len(buffer) - keep)
		if size >= 0 && size-done < want {
			want = size - done
		}
		n, err := r.ReadAt(buffer[keep:keep+int(want)], offset+done)
		if n > 0 {
			done += int64(n)
			if holds(buffer[:keep+n]) {
				return done, true
			}
			valid := keep + n
			keep = len(masked) - 1
			if keep > valid {
				keep = valid
			}
			copy(buffer, buffer[valid-keep:valid])
		}
		if err != nil || n == 0 {
			break
		}
	}
	return done, false
}

var at atomic.Value // where the scan is, for the report if it runs out of time

func main() {
	began := time.Now()
	at.Store("start")
	time.AfterFunc(15*time.Second, func() {
		fmt.Println("scan ran out of time at", at.Load())
		os.Exit(3)
	})
	if err := os.WriteFile("/tmp/scan-control.txt", control, 0o600); err != nil {
		fmt.Println("cannot write the control file:", err)
		os.Exit(1)
	}
	controlFound := false
	var found []string
	files, bytes := 0, int64(0)
	if holds([]byte(strings.Join(os.Environ(), "\n"))) {
		found = append(found, "environment")
	}
	skip := map[string]bool{"/proc": true, "/sys": true, "/usr": true,
		os.Getenv("GOROOT"): true, os.Getenv("GOMODCACHE"): true, "/opt/kode-gopher/gocache-base": true,
		"/opt/kode-gopher/gomodcache-extra": true, "/opt/kode-gopher/bincache": true}
	filepath.WalkDir("/", func(path string, entry fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if entry.IsDir() && skip[path] {
			return filepath.SkipDir
		}
		if !entry.Type().IsRegular() {
			return nil
		}
		at.Store(path)
		file, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer file.Close()
		// A device bound over a file (bubblewrap's /dev/full, /dev/zero...) lists as a file.
		if info, err := file.Stat(); err != nil || !info.Mode().IsRegular() {
			return nil
		}
		files++
		if path == "/tmp/scan-control.txt" {
			data := make([]byte, len(control))
			n, _ := file.ReadAt(data, 0)
			controlFound = n == len(control) && string(data) == string(control)
		}
		fileBegan := time.Now()
		n, hit := scan(file, 0, -1)
		if took := time.Since(fileBegan); took > time.Second {
			fmt.Println("slow file", path, n, took)
		}
		bytes += n
		if hit {
			found = append(found, path)
		}
		return nil
	})
	filesTook := time.Since(began)
	fmt.Println("files scanned in", filesTook)
	pids, _ := os.ReadDir("/proc")
	for _, pid := range pids {
		if _, err := strconv.Atoi(pid.Name()); err != nil {
			continue
		}
		for _, part := range []string{"environ", "cmdline"} {
			if data, err := os.ReadFile("/proc/" + pid.Name() + "/" + part); err == nil && holds(data) {
				found = append(found, "/proc/"+pid.Name()+"/"+part)
			}
		}
	}
	memory := int64(0)
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		fmt.Println("no /proc/self/maps:", err)
		os.Exit(1)
	}
	mem, err := os.Open("/proc/self/mem")
	if err != nil {
		fmt.Println("no /proc/self/mem:", err)
		os.Exit(1)
	}
	lines := bufio.NewScanner(strings.NewReader(string(maps)))
	for lines.Scan() {
		fields := strings.Fields(lines.Text())
		if len(fields) < 2 || fields[1][0] != 'r' {
			continue
		}
		var start, end uint64
		fmt.Sscanf(fields[0], "%x-%x", &start, &end)
		at.Store(lines.Text())
		regionBegan := time.Now()
		n, hit := scan(mem, int64(start), int64(end-start))
		if took := time.Since(regionBegan); took > time.Second {
			fmt.Println("slow region", lines.Text(), n, took)
		}
		memory += n
		if hit {
			found = append(found, "memory "+fields[0])
		}
	}
	fmt.Printf("files=%d bytes=%d memory=%d control=%v found=%q (files %s, all %s)\n", files, bytes,
		memory, controlFound, found, filesTook, time.Since(began))
}
