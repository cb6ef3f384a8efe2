//go:build unix

package data

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFORefused: a named pipe given as a data file (with no writer, so
// that open(2) would block for ever) is refused at once, naming the file,
// by every way a file is read.
func TestFIFORefused(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"x.npy", "x.csv", "x.libsvm", "x.gz"} {
		fifo := filepath.Join(dir, name)
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		done := make(chan error, 1)
		go func() {
			_, _, err := Load(fifo, Options{})
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), fifo+" is a named pipe (FIFO), not a regular file") {
				t.Errorf("Load(%s): %v, want it refused as a named pipe", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Load(%s) still blocked after 10 s", name)
		}
	}
}
