package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/internal/datatest"
)

// waitFor polls until path exists or the timeout passes.
func waitFor(t *testing.T, path string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within %v", path, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// syncBuffer collects what a running command writes while the test
// reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{} }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// start runs the binary in dir without waiting; stderr goes to errb.
func start(t *testing.T, dir string, errb *syncBuffer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Stderr = errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// TestRefusedSettings: every setting that cannot work is refused before
// training, with exit status 2, one line naming the flag, and no run
// directory left behind.
func TestRefusedSettings(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-epochs", "0"}, "epochs = 0"},
		{[]string{"-eval-every", "-3"}, "eval-every = -3"},
		{[]string{"-likelihood", "bogus"}, `likelihood "bogus"`},
		{[]string{"-data", "bas", "-method", "line", "-v", "0"}, "v = 0"},
		{[]string{"-data", "x.libsvm", "-format", "bogus"}, `format "bogus"`},
		{[]string{"-data", "bas", "-format", "idx"}, "-format applies to a data file"},
		{[]string{"-data", "bas", "-test-data", "x.data"}, "-test-data applies to a data file"},
		{[]string{"-data", "bas", "-method", "dense", "-p", "0.3"}, "-p applies to -method ncg only"},
		{[]string{"-data", "bas", "-exact", "-ais-runs", "5"}, "-ais-runs applies to AIS"},
		{[]string{"-data", "bas", "-checkpoint-every", "-1s"}, "-checkpoint-every -1s is negative"},
		{[]string{"-data", "bas", "-classify"}, "classify: data bas has no labels"},
		{[]string{"-data", "nosuch"}, `data: "nosuch" is neither a known data set`},
		{[]string{"-data", "."}, "data: . is a directory, not a data file"},
		{[]string{"-data", ""}, "data: empty name"},
		{[]string{"-data", "bas", "-workers", "-1"}, "workers = -1 is negative"},
		// Checked before training instead of ending in NaN or garbage.
		{[]string{"-data", "bas", "-l1", "1e39"}, "l1 = 1e+39 is beyond float32's range"},
		{[]string{"-data", "bas", "-init-scale", "1e39"}, "init-scale = 1e+39 is beyond float32's range"},
		{[]string{"-data", "bas", "-lr", "0.1", "-l2", "30"}, "l2 = 30: with lr 0.1 and momentum 0, weight decay alone makes the weights grow without bound"},
		{[]string{"-data", "huge.csv", "-visible", "gaussian"}, "data huge.csv: values up to |x| = 1e+20, whose squares"},
		// Settings that cannot work: exit 2, not a failure of exit 1.
		{[]string{"-data", "huge.csv", "-visible", "gaussian", "-classify"}, "classify: label units need binary or categorical visible units"},
		{[]string{"-data", "mnist", "-data-dir", "nosuch"}, "-data-dir nosuch: no such directory"},
		{[]string{"-data", "mnist", "-data-dir", "huge.csv"}, "-data-dir huge.csv is a file, not a data directory"},
	}
	if err := os.WriteFile(filepath.Join(dir, "huge.csv"), []byte("1,2\n1e20,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if mnist, err := datatest.FindDir(); err == nil && fileExists(filepath.Join(mnist, "mnist", data.MNISTTrainImages)) {
		cases = append(cases,
			// 30 hidden units: 2^30 states, beyond exact log Z.
			struct {
				args []string
				want string
			}{[]string{"-data", "mnist", "-data-dir", mnist, "-hidden", "30", "-exact", "-epochs", "1"}, "likelihood exact: exact log Z of 784 binary visible and 30 hidden units sums over 2^30 states; the limit is 2^25; use ais"},
			// 784 × 2·10⁹ weights: terabytes.
			struct {
				args []string
				want string
			}{[]string{"-data", "mnist", "-data-dir", mnist, "-hidden", "2000000000"}, "hidden = 2000000000: a run of 784 visible units needs at least"},
		)
	} else if os.Getenv("NCG_REQUIRE_DATA") != "" {
		t.Fatalf("MNIST is missing from the test data directory (%v)", err)
	}
	for _, c := range cases {
		args := append([]string{"train", "-out", "r", "-quiet"}, c.args...)
		_, errb, code := ncgbench(t, dir, args...)
		if code != 2 || !strings.Contains(errb, c.want) || strings.Count(strings.TrimSpace(errb), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line saying %q", c.args, code, errb, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "r")); err == nil {
			t.Errorf("%v: left a run directory", c.args)
			os.RemoveAll(filepath.Join(dir, "r"))
		}
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestRunDirectoryLock: while a run trains in a directory, a second train
// into it, and a second identical sweep, fail at once naming the process
// that holds it; the first goes on undisturbed.
func TestRunDirectoryLock(t *testing.T) {
	dir := t.TempDir()
	errb := newSyncBuffer()
	long := []string{"-data", "bas", "-epochs", "1000000", "-likelihood", "none", "-quiet"}
	first := start(t, dir, errb, append([]string{"train", "-out", "r"}, long...)...)
	waitFor(t, filepath.Join(dir, "r", "config.json"), 30*time.Second)
	sweep := start(t, dir, errb, append([]string{"sweep", "-out", "s", "-seed", "1"}, long...)...)
	waitFor(t, filepath.Join(dir, "s", "bas-ncg-seed1", "config.json"), 30*time.Second)

	for _, c := range []struct {
		args []string
		pid  int
	}{
		{append([]string{"train", "-out", "r"}, long...), first.Process.Pid},
		{append([]string{"sweep", "-out", "s", "-seed", "1"}, long...), sweep.Process.Pid},
		// Another sweep's run, in the same directory as a locked run.
		{append([]string{"train", "-out", filepath.Join("s", "bas-ncg-seed1")}, long...), sweep.Process.Pid},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, binary, c.args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		cancel()
		want := fmt.Sprintf("in use by process %d", c.pid)
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), want) {
			t.Errorf("%v while another process works there: %v, %s; want exit 1 and %q", c.args, err, out, want)
		}
	}
	for _, cmd := range []*exec.Cmd{first, sweep} {
		if cmd.ProcessState != nil {
			t.Fatalf("the first process stopped: %s", errb.String())
		}
		cmd.Process.Signal(os.Interrupt)
		if err := cmd.Wait(); cmd.ProcessState.ExitCode() != 130 {
			t.Errorf("Ctrl-C: %v, want exit 130; %s", err, errb.String())
		}
	}
}

// TestForeignCheckpointRefused: a checkpoint of another run (another seed)
// copied into a run directory is refused, naming the setting that differs.
func TestForeignCheckpointRefused(t *testing.T) {
	dir := t.TempDir()
	args := func(seed, out string) []string {
		return []string{"train", "-data", "bas", "-epochs", "3", "-seed", seed, "-out", out, "-quiet"}
	}
	for _, seed := range []string{"1", "2"} {
		if _, errb, code := ncgbench(t, dir, args(seed, "r"+seed)...); code != 0 {
			t.Fatalf("seed %s: exit %d: %s", seed, code, errb)
		}
	}
	os.Remove(filepath.Join(dir, "r1", "result.json")) // unfinished again
	b, err := os.ReadFile(filepath.Join(dir, "r2", "checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "r1", "checkpoint"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errb, code := ncgbench(t, dir, args("1", "r1")...)
	if code != 2 || !strings.Contains(errb, "another configuration") || !strings.Contains(errb, "-seed: 2 vs 1") {
		t.Errorf("foreign checkpoint: exit %d, %s; want exit 2 naming -seed: 2 vs 1", code, errb)
	}
	// A corrupt checkpoint: the error says what to do.
	os.Remove(filepath.Join(dir, "r1", "result.json"))
	b[len(b)/2] ^= 1
	os.WriteFile(filepath.Join(dir, "r1", "checkpoint"), b, 0o644)
	_, errb, code = ncgbench(t, dir, args("1", "r1")...)
	if code != 1 || !strings.Contains(errb, "checksum mismatch") || !strings.Contains(errb, "away") {
		t.Errorf("corrupt checkpoint: exit %d, %s; want the checksum error and what to do", code, errb)
	}
}

// TestInterruptDuringFinalAIS: Ctrl-C during the end-of-training AIS stops
// the run within seconds with exit status 130; the trained model and its
// checkpoint are kept, and the next invocation resumes at the final
// evaluation instead of training again.
func TestInterruptDuringFinalAIS(t *testing.T) {
	dir := t.TempDir()
	// 2 million intervals of 100 runs: minutes of AIS.
	args := []string{"train", "-data", "bas", "-epochs", "5", "-likelihood", "ais", "-ais-betas", "2000000", "-out", "r"}
	for attempt := 1; attempt <= 2; attempt++ {
		errb := newSyncBuffer()
		cmd := start(t, dir, errb, args...)
		// model.npz is written once training is over, before the evaluation;
		// at the second attempt it is there from the first.
		if attempt == 1 {
			waitFor(t, filepath.Join(dir, "r", "model.npz"), 60*time.Second)
		} else {
			deadline := time.Now().Add(60 * time.Second)
			for !strings.Contains(errb.String(), "resuming") && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
		}
		time.Sleep(500 * time.Millisecond) // well into the AIS
		sent := time.Now()
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("attempt %d: still running 10 s after Ctrl-C; stderr:\n%s", attempt, errb.String())
		}
		if code := cmd.ProcessState.ExitCode(); code != 130 {
			t.Fatalf("attempt %d: exit %d, want 130; stderr:\n%s", attempt, code, errb.String())
		}
		t.Logf("attempt %d stopped %v after Ctrl-C", attempt, time.Since(sent).Round(time.Millisecond))
		if attempt == 2 && !strings.Contains(errb.String(), "resuming r at epoch 5") {
			t.Errorf("the second invocation did not resume at the final evaluation:\n%s", errb.String())
		}
		for _, f := range []string{"checkpoint", "model.npz", "metrics.csv"} {
			if !fileExists(filepath.Join(dir, "r", f)) {
				t.Errorf("attempt %d: no %s kept", attempt, f)
			}
		}
		if fileExists(filepath.Join(dir, "r", "result.json")) {
			t.Errorf("attempt %d: result.json written by an interrupted evaluation", attempt)
		}
	}
}

// TestEvalRefusesFlagsThatCannotApply: eval's AIS and RAISE flags without
// AIS or RAISE exit 2 with one line rather than being ignored, also when
// AIS is left out by the default likelihood (no -likelihood), which computes the
// exact log Z of bas's 16 × 16 model (2^16 states, under ExactLimit).
func TestEvalRefusesFlagsThatCannotApply(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.csv"), []byte("0.5,-1\n-0.5,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errb, code := ncgbench(t, dir, "train", "-data", "x.csv", "-visible", "gaussian", "-hidden", "16", "-epochs", "2", "-out", "g", "-quiet"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb)
	}
	if _, errb, code := ncgbench(t, dir, "train", "-data", "bas", "-epochs", "2", "-out", "r", "-quiet"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-likelihood", "exact", "-ais-runs", "5"}, "-ais-runs applies to AIS"},
		{[]string{"-likelihood", "none", "-ais-seed", "3"}, "-ais-seed applies to AIS and RAISE"},
		{[]string{"-raise-chains", "3"}, "-raise-chains applies to RAISE"},
		{[]string{"-ais-runs", "5"}, "-ais-runs applies to AIS, not to -likelihood exact (what no -likelihood chooses for r, whose exact log Z would sum over 2^16 states)"},
		{[]string{"-ais-betas", "50"}, "-ais-betas applies to AIS and RAISE: neither runs with -likelihood exact (what no -likelihood chooses"},
		{[]string{"-ais-seed", "2"}, "-ais-seed applies to AIS and RAISE"},
		// A set to measure that the data lack: not the training rows instead.
		{[]string{"-data", "x.csv", "-set", "test"}, "-set test: data x.csv has no test set"},
	} {
		_, errb, code := ncgbench(t, dir, append([]string{"eval", "-model", "r", "-quiet"}, c.args...)...)
		if code != 2 || !strings.Contains(errb, c.want) || strings.Count(strings.TrimSpace(errb), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line saying %q", c.args, code, errb, c.want)
		}
	}
}

// TestSweepRefusesBeforeTraining: a sweep with one run that cannot work
// with its data (a line wider than bas's 16 units) is refused before any
// run trains, and so is its -dry-run, which lists what would train.
func TestSweepRefusesBeforeTraining(t *testing.T) {
	dir := t.TempDir()
	for _, dry := range []bool{false, true} {
		args := []string{"sweep", "-data", "bas", "-method", "line", "-v", "5,17", "-epochs", "2", "-out", "s", "-quiet"}
		if dry {
			args = append(args, "-dry-run")
		}
		_, errb, code := ncgbench(t, dir, args...)
		if code != 2 || !strings.Contains(errb, "run bas-line-v17-seed1: v = 17") || strings.Count(strings.TrimSpace(errb), "\n") > 0 {
			t.Errorf("dry run %v: exit %d, %q; want exit 2 and one line naming run bas-line-v17-seed1", dry, code, errb)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "s")); err == nil {
		t.Error("the refused sweep wrote its directory")
	}
}
