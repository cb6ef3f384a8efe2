package data

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLoadReportsWhyADataDirectoryCannotBeRead: a data directory that is a
// file (as root, the one unreadable directory a test can make) is reported
// with the system's reason, not as files to fetch.
func TestLoadReportsWhyADataDirectoryCannotBeRead(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-directory")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mnist", "mushrooms", "connect-4"} {
		_, _, err := Load(name, Options{Dir: file})
		if !errors.Is(err, syscall.ENOTDIR) || strings.Contains(err.Error(), "data fetch") {
			t.Errorf("%s: %v, want a 'not a directory' error that does not ask to fetch", name, err)
		}
	}
}

// TestLoadReportsPermissionDenied: an unreadable data directory is reported
// as permission denied. Root reads everything, so it runs as another user
// only.
func TestLoadReportsPermissionDenied(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root is never denied; TestLoadReportsWhyADataDirectoryCannotBeRead covers the same path")
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "mnist"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	_, _, err := Load("mnist", Options{Dir: dir})
	if !errors.Is(err, os.ErrPermission) {
		t.Errorf("%v, want permission denied", err)
	}
}

// TestFetchOfflineLeavesNothing: with every source unreachable, Fetch says
// in one line per file where to get it and where to put it, and leaves no
// file and no directory behind.
func TestFetchOfflineLeavesNothing(t *testing.T) {
	// A port nothing listens on: connections are refused at once.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String() + "/"
	l.Close()
	dir := filepath.Join(t.TempDir(), "data")
	var log strings.Builder
	err = Fetch(context.Background(), "mnist", dir, FetchOptions{MNISTBaseURLs: []string{dead + "a/", dead + "b/"}, Log: &log})
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 1+4 {
		t.Errorf("%d lines for 4 files, want a header and one per file:\n%s", len(lines), err)
	}
	for _, l := range lines[1:] {
		if !strings.Contains(l, " → "+dir) || !strings.Contains(l, dead+"a/") || !strings.Contains(l, dead+"b/") {
			t.Errorf("line %q does not say where to put the file and what each source answered", l)
		}
	}
	if log.Len() != 0 {
		t.Errorf("log of a fetch that got nothing:\n%s", log.String())
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left behind (%v)", dir, err)
	}
}
