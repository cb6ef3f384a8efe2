//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFODataRefused: a named pipe as -data or -test-data (with no
// writer, so that opening it would block for ever and Ctrl-C would wait
// on it) is refused at once with exit status 2, naming the flag and the
// file, by train, sweep and eval.
func TestFIFODataRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.npy")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x.csv"), []byte("1,2\n3,4\n5,7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errb, code := ncgbench(t, dir, "train", "-data", "bas", "-epochs", "1", "-likelihood", "none", "-out", "run", "-quiet"); code != 0 {
		t.Fatal(errb)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "-data", fifo, "-visible", "gaussian", "-out", "r"}, "data: " + fifo + " is a named pipe (FIFO)"},
		{[]string{"train", "-data", "x.csv", "-test-data", fifo, "-visible", "gaussian", "-out", "r"}, "test-data: " + fifo + " is a named pipe (FIFO)"},
		{[]string{"sweep", "-data", fifo, "-visible", "gaussian", "-out", "s"}, "data: " + fifo + " is a named pipe (FIFO)"},
		{[]string{"eval", "-model", "run/model.npz", "-data", fifo}, "data: " + fifo + " is a named pipe (FIFO)"},
	} {
		start := time.Now()
		_, errb, code := ncgbench(t, dir, append(c.args, "-quiet")...)
		if code != 2 || !strings.Contains(errb, c.want) || time.Since(start) > 5*time.Second {
			t.Errorf("%v: exit %d after %v, %q; want exit 2 at once saying %q", c.args, code, time.Since(start), errb, c.want)
		}
	}
}
