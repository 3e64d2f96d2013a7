package main

import (
	"os"
	"slices"
	"strconv"
)

// How the fast path runs the compiler and the linker where go build's defaults cost time and
// change nothing in the program (bench/README.md, "Issue 27: the compiled floor", has the
// measurements):
//
//   - Without DWARF in the user's packages (-dwarf=false) when the link drops it anyway (-w):
//     go run and go test compile their main packages so (cmd/go's OmitDebug). Panic traces,
//     runtime.Caller and the like read file:line from the pclntab, which the compiler writes
//     either way; the binary is the same program.
//   - With the garbage collector held off until the heap nears a quarter of the build's memory
//     limit (GOGC=off, GOMEMLIMIT): the compiler of a 20-line main importing the storage client
//     spends a quarter of its CPU time in the collector (its peak heap is ~230 MB without it).
//     A soft limit: past it the collector runs as before, so a build that fits the sandbox's
//     memory with the defaults still fits. No limit known (0): the defaults.

// stripsDWARF says whether the link flags drop the DWARF sections (-w).
func stripsDWARF(linkFlags []string) bool {
	return slices.ContainsFunc(linkFlags, func(f string) bool {
		return f == "-w" || f == "-w=true" || f == "-w=1"
	})
}

// toolEnvironment is the environment of the compiler and the linker, extra first: os.Environ
// with the garbage collector's settings for a build allowed memoryLimit bytes (0: unknown).
func toolEnvironment(memoryLimit int64, extra ...string) []string {
	env := append(os.Environ(), extra...)
	if memoryLimit <= 0 {
		return env
	}
	return append(env, "GOGC=off", "GOMEMLIMIT="+strconv.FormatInt(memoryLimit/4, 10))
}
