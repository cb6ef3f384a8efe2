package engine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
)

// tempPattern is the os.CreateTemp pattern of WriteAtomic's temporary file
// for a file named base: ".base.tmp" and digits.
func tempPattern(base string) string { return "." + base + ".tmp*" }

// tempName matches the names tempPattern produces.
var tempName = regexp.MustCompile(`^\..+\.tmp[0-9]+$`)

// RemoveTemps deletes the temporary files WriteAtomic left in dir when its
// process was killed mid-write (a finished write renames its file, a failed
// one removes it). Call it only while no other process writes to dir (under
// its lock): a temporary file being written looks the same.
func RemoveTemps(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if e.Type().IsRegular() && tempName.MatchString(e.Name()) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
