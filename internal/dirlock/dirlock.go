// Package dirlock takes an exclusive, advisory lock on a directory, so that
// two processes never write one run directory (or one sweep shard's output)
// at once. The lock is a lock file inside the directory holding the PID of
// its holder; the operating system drops it when the holder exits, however
// it exits (SIGKILL included), so a stale lock file never blocks anyone.
//
// It does not create the directory nor remove the lock file (an unlocked
// lock file is harmless, and removing it would race with a new holder).
package dirlock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// InUseError reports a directory locked by another process (or by another
// Lock in this one).
type InUseError struct {
	Dir string
	PID int // 0 when the holder's PID could not be read
}

func (e *InUseError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("%s is in use by process %d (wait for it to finish, or stop it)", e.Dir, e.PID)
	}
	return fmt.Sprintf("%s is in use by another process (wait for it to finish, or stop it)", e.Dir)
}

// Lock is a held lock; Unlock releases it.
type Lock struct {
	f *os.File
}

// Acquire locks dir through the file name inside it, without waiting: if
// another process holds the lock it returns an *InUseError naming that
// process.
func Acquire(dir, name string) (*Lock, error) {
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, &InUseError{Dir: dir, PID: readPID(path)}
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	// Ours now: record our PID for whoever finds it locked.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock. It is safe to call on a nil Lock and twice.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the descriptor releases the lock
	l.f = nil
	return err
}

func readPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// errLocked is what lockFile returns when someone else holds the lock.
var errLocked = errors.New("locked")
