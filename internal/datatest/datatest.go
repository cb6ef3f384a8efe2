// Package datatest finds the shared data sets for the tests and benchmarks
// of every package: [Dir] and [File] return a path, or skip the test when
// the data is missing (fail it in CI, see [Required]).
//
// It is test machinery: only _test.go files import it, and being internal
// it is no part of the library's API.
package datatest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// FindDir returns the data directory for tests: $NCG_DATA if set, else
// ../shared/data relative to the module root (the directory holding go.mod,
// found by walking up from the working directory, which for tests is the
// package directory). It returns an error saying where it looked when that
// directory does not exist.
func FindDir() (string, error) {
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

// Required reports whether tests must fail, not skip, when data is
// missing: when CI=true and NCG_REQUIRE_DATA=1.
func Required() bool {
	return os.Getenv("CI") == "true" && os.Getenv("NCG_REQUIRE_DATA") == "1"
}

// TB is the part of testing.TB these helpers use; *testing.T and
// *testing.B satisfy it, and so can a fake that records the outcome
// (testing.TB itself cannot be implemented outside package testing).
type TB interface {
	Helper()
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Dir returns [FindDir]'s directory for a test, or skips the test with the
// reason when there is none — or fails it if [Required].
func Dir(tb TB) string {
	tb.Helper()
	d, err := FindDir()
	if err != nil {
		missing(tb, err)
	}
	return d
}

// File returns the path of file rel (slash-separated, e.g.
// "mnist/train-images-idx3-ubyte.gz") in the test data directory, or skips
// (fails if [Required]) the test when it is missing.
func File(tb TB, rel string) string {
	tb.Helper()
	p := filepath.Join(Dir(tb), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		missing(tb, err)
	}
	return p
}

func missing(tb TB, err error) {
	tb.Helper()
	if Required() {
		tb.Fatalf("data required (CI=true, NCG_REQUIRE_DATA=1): %v", err)
		return
	}
	tb.Skipf("skipping: %v (set NCG_DATA to the data directory; 'ncgbench data fetch' downloads it)", err)
}
