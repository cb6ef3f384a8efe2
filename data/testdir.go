package data

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// FindTestDir returns the data directory for tests: $NCG_DATA if set, else
// ../shared/data relative to the module root (the directory holding go.mod,
// found by walking up from the working directory, which for tests is the
// package directory). It returns an error saying where it looked when that
// directory does not exist.
func FindTestDir() (string, error) {
	if d := os.Getenv("NCG_DATA"); d != "" {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("NCG_DATA=%q is not a directory", d)
		}
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			cand := filepath.Join(filepath.Dir(d), "shared", "data")
			if fi, err := os.Stat(cand); err == nil && fi.IsDir() {
				return cand, nil
			}
			return "", fmt.Errorf("no test data: NCG_DATA is not set and %s does not exist", cand)
		}
		up := filepath.Dir(d)
		if up == d {
			return "", errors.New("no test data: NCG_DATA is not set and no go.mod found above " + wd)
		}
		d = up
	}
}

// RequireData reports whether tests must fail, not skip, when data is
// missing: when CI=true and NCG_REQUIRE_DATA=1.
func RequireData() bool {
	return os.Getenv("CI") == "true" && os.Getenv("NCG_REQUIRE_DATA") == "1"
}

// TB is the part of testing.TB the test helpers use (so that this package
// need not import "testing").
type TB interface {
	Helper()
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// TestDir returns [FindTestDir]'s directory for a test, or skips the test
// with the reason when there is none — or fails it if [RequireData].
func TestDir(tb TB) string {
	tb.Helper()
	d, err := FindTestDir()
	if err != nil {
		missingData(tb, err)
	}
	return d
}

// TestFile returns the path of file rel (slash-separated, e.g.
// "mnist/train-images-idx3-ubyte.gz") in the test data directory, or skips
// (fails if [RequireData]) the test when it is missing.
func TestFile(tb TB, rel string) string {
	tb.Helper()
	p := filepath.Join(TestDir(tb), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		missingData(tb, err)
	}
	return p
}

func missingData(tb TB, err error) {
	tb.Helper()
	if RequireData() {
		tb.Fatalf("data required (CI=true, NCG_REQUIRE_DATA=1): %v", err)
		return
	}
	tb.Skipf("skipping: %v (set NCG_DATA to the data directory; 'ncgbench data fetch' downloads it)", err)
}
