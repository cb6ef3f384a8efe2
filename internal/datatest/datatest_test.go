package datatest

import (
	"fmt"
	"path/filepath"
	"testing"
)

type fakeTB struct{ skipped, failed string }

func (f *fakeTB) Helper()                           {}
func (f *fakeTB) Skipf(format string, args ...any)  { f.skipped = fmt.Sprintf(format, args...) }
func (f *fakeTB) Fatalf(format string, args ...any) { f.failed = fmt.Sprintf(format, args...) }

func TestDirMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	t.Setenv("NCG_DATA", missing)
	t.Setenv("CI", "")
	var tb fakeTB
	Dir(&tb)
	if tb.skipped == "" || tb.failed != "" {
		t.Errorf("not required: %+v", tb)
	}
	t.Setenv("CI", "true")
	t.Setenv("NCG_REQUIRE_DATA", "1")
	tb = fakeTB{}
	Dir(&tb)
	if tb.failed == "" || tb.skipped != "" {
		t.Errorf("required: %+v", tb)
	}
	dir := t.TempDir()
	t.Setenv("NCG_DATA", dir)
	if d, err := FindDir(); err != nil || d != dir {
		t.Errorf("FindDir = %q, %v", d, err)
	}
	tb = fakeTB{}
	File(&tb, "mnist/x.gz")
	if tb.failed == "" {
		t.Errorf("missing file not reported: %+v", tb)
	}
}
