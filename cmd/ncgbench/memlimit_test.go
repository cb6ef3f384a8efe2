//go:build linux

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMemoryLimitsNamed: a run that fits in the machine's RAM but not in
// the memory the process is allowed (GOMEMLIMIT; an address-space limit
// set by prlimit --as) is refused with exit 2 before training, and the
// refusal names that limit, not the machine's RAM. The largest array of
// each run is its AIS schedule (one AIS run of 16 + 16 units is small):
// 10⁷ intervals hold 10⁷ + 1 float64 inverse temperatures and as many
// float32 copies, 120 MB, past 64 MiB; 3·10⁸ intervals 3.6 GB, past the
// 2 GiB of address space (of which the Go runtime and its threads need
// some).
func TestMemoryLimitsNamed(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, intervals string
		prefix          []string
		env, limit      string
	}{
		{"GOMEMLIMIT", "10000000", nil, "GOMEMLIMIT=64MiB", "this process may use 64 MiB (GOMEMLIMIT)"},
		{"prlimit --as", "300000000", []string{"prlimit", "--as=2147483648"}, "", "this process may use 2 GiB (the address-space limit RLIMIT_AS, ulimit -v)"},
	} {
		args := []string{"train", "-data", "bas", "-epochs", "1", "-likelihood", "ais", "-ais-runs", "1", "-ais-betas", c.intervals, "-quiet", "-out", "r"}
		cmdline := append(append(c.prefix, binary), args...)
		if _, err := exec.LookPath(cmdline[0]); err != nil {
			t.Logf("%s: no %s", c.name, cmdline[0])
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd := exec.CommandContext(ctx, cmdline[0], cmdline[1:]...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), c.env)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		cancel()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != 2 || !strings.Contains(errb.String(), "ais-betas = "+c.intervals+": ") || !strings.Contains(errb.String(), c.limit) {
			t.Errorf("%s: exit %d, %.300q; want exit 2 naming -ais-betas and %q", c.name, code, errb.String(), c.limit)
		}
		os.RemoveAll(filepath.Join(dir, "r"))
	}
}
