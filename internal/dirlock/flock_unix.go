//go:build unix

package dirlock

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes flock(2)'s exclusive lock without blocking. flock locks
// belong to the open file description, so a second Acquire in the same
// process is refused too (unlike POSIX record locks).
func lockFile(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EWOULDBLOCK):
			return errLocked
		case errors.Is(err, unix.EINTR):
			continue
		}
		return err
	}
}
