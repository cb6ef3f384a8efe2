package dirlock

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestAcquireRefusesASecondHolder: while one Lock is held, a second Acquire
// (here in the same process: flock locks belong to the open file, so this is
// the same refusal another process gets) fails with the holder's PID; after
// Unlock the directory can be locked again.
func TestAcquireRefusesASecondHolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock")
	}
	dir := t.TempDir()
	l, err := Acquire(dir, "lock")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(dir, "lock")
	var inUse *InUseError
	if !errors.As(err, &inUse) || inUse.PID != os.Getpid() {
		t.Fatalf("second Acquire: %v, want in use by process %d", err, os.Getpid())
	}
	if want := fmt.Sprintf("in use by process %d", os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l2, err := Acquire(dir, "lock")
	if err != nil {
		t.Fatalf("after Unlock: %v", err)
	}
	l2.Unlock()
}

// TestLockDiesWithItsProcess: a process killed with SIGKILL while holding
// the lock leaves the lock file behind but not the lock.
func TestLockDiesWithItsProcess(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock")
	}
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("no flock(1) command to hold a lock from another process")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "lock")
	cmd := exec.Command("flock", "-o", "-x", path, "sleep", "60") // -o: sleep does not inherit the lock
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		l, err := Acquire(dir, "lock")
		var inUse *InUseError
		if errors.As(err, &inUse) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		l.Unlock() // flock(1) has not started yet
		if time.Now().After(deadline) {
			t.Fatal("flock(1) never took the lock")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	l, err := Acquire(dir, "lock")
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	l.Unlock()
}
