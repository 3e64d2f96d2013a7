package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// child is one process the supervisor or the kubelet player started: its output goes to a log
// file, and it gets SIGKILL from the kernel if its starter dies (PR_SET_PDEATHSIG), so nothing
// outlives the cluster even when the supervisor is killed with SIGKILL.
type child struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	exited  chan struct{} // closed once the process has been waited for
	err     error         // its exit status, valid after exited is closed
}

func startChild(name, logPath string, argv []string, env []string) (*child, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening the log of %s: %w", name, err)
	}
	defer logFile.Close()
	fmt.Fprintf(logFile, "=== %s: %s\n", time.Now().Format(time.RFC3339), strings.Join(argv, " "))
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s (%s): %w", name, argv[0], err)
	}
	c := &child{name: name, logPath: logPath, cmd: cmd, exited: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

func (c *child) running() bool {
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM, then SIGKILL after grace, and waits for the process to be gone.
func (c *child) stop(grace time.Duration) {
	if !c.running() {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(grace):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
}

// logTail is the last lines of a log file, for error messages.
func logTail(path string, lines int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(no log at %s: %v)", path, err)
	}
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return fmt.Sprintf("last %d lines of %s:\n%s", len(all), filepath.Clean(path), strings.Join(all, "\n"))
}
