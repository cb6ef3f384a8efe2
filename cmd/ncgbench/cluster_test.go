package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startSweepTask starts a sweep as a Slurm array task would: its shard
// from the environment given, with -shards 3.
func startSweepTask(t *testing.T, dir string, errb *syncBuffer, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"sweep", "-shards", "3"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// TestSameShardTwiceIsRefused: two Slurm array tasks given the same shard
// index (the array submitted again, one task of it submitted alone) do
// not both run: the second is refused at once, saying which shard of
// which sweep is already running and by which process, while a task of
// another shard runs beside the first.
func TestSameShardTwiceIsRefused(t *testing.T) {
	dir := t.TempDir()
	sweep := []string{"-data", "bas", "-method", "ncg,dense", "-seed", "1-3", "-epochs", "1000000", "-likelihood", "none", "-out", "s", "-quiet"}
	errb := newSyncBuffer()
	// The first array, --array=0-2: its task 1.
	first := startSweepTask(t, dir, errb, []string{"SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_COUNT=3"}, sweep...)
	// Its task 2: another shard, in the same directory.
	other := startSweepTask(t, dir, errb, []string{"SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_COUNT=3"}, sweep...)
	// Runs 1 and 4 of the grid (method × seed, the seed fastest) are shard
	// 1's; run 2 is shard 2's.
	waitFor(t, filepath.Join(dir, "s", "bas-ncg-seed2", "config.json"), 30*time.Second)
	waitFor(t, filepath.Join(dir, "s", "bas-ncg-seed3", "config.json"), 30*time.Second)

	// sbatch --array=1 of the same script: Slurm sets these for its task.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dup := exec.CommandContext(ctx, binary, append([]string{"sweep", "-shards", "3"}, sweep...)...)
	dup.Dir = dir
	dup.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_COUNT=1")
	out, err := dup.CombinedOutput()
	want := fmt.Sprintf("shard 1/3 of the sweep in s is already running: s is in use by process %d", first.Process.Pid)
	if dup.ProcessState == nil || dup.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), want) {
		t.Errorf("a second task of shard 1: %v, %q; want exit 1 and %q", err, out, want)
	}
	for _, cmd := range []*exec.Cmd{first, other} {
		if cmd.ProcessState != nil {
			t.Fatalf("a first task stopped: %s", errb.String())
		}
		cmd.Process.Signal(os.Interrupt)
		if err := cmd.Wait(); cmd.ProcessState.ExitCode() != 130 {
			t.Errorf("Ctrl-C: %v, want exit 130; %s", err, errb.String())
		}
	}
}
