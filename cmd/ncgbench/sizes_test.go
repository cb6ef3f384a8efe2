package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sbinet/npyio/npz"
	"golang.org/x/sys/unix"
)

// TestSizesRefusedBeforeAllocation: every size a flag decides is checked
// before it is allocated, and one too large for any machine is refused
// with exit 2 and one line naming the flag at fault. Each case needs far
// more than a machine has, counting its largest array alone: 10⁹
// temperatures × batch 10 × 16 units of float32 chains are 640 GB; a batch
// of 10⁹ makes 10⁹×16 float32 start states, 64 GB; 9·10¹⁷ AIS runs make as
// many float64 log weights and 9·10¹⁷ intervals as many float64 inverse
// temperatures, 7.2 EB; 9·10¹⁷ RAISE chains of a row as many float64
// estimates; 9·10¹⁷ BDMC rows as many rows of 16 units and their chains;
// a schedule grown to 9·10¹⁷ intervals as many inverse temperatures;
// 10⁸ sample chains of 4×4 tiles at 8 pixels a unit make a square grid of
// 10⁴ tiles a side, 34 × 10⁴ pixels wide, past the 65,536 allowed; 10⁵
// pixels a unit make one 4×4 tile 400,000 pixels wide. 5000 workers are
// above the cap of 4096, and a sweep of 2 × 100,000 seeds above 100,000
// runs.
func TestSizesRefusedBeforeAllocation(t *testing.T) {
	dir := t.TempDir()
	if _, errb, code := ncgbench(t, dir, "train", "-data", "bas", "-hidden", "8", "-epochs", "2", "-out", "run", "-quiet"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb)
	}
	const huge = "900000000000000000"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "-data", "bas", "-sampler", "pt", "-temperatures", "1000000000"}, "temperatures = 1000000000:"},
		{[]string{"sweep", "-data", "bas", "-sampler", "pt", "-temperatures", "1000000000"}, "temperatures = 1000000000:"},
		{[]string{"train", "-data", "bas", "-batch", "1000000000"}, "batch = 1000000000:"},
		{[]string{"sweep", "-data", "bas", "-batch", "1000000000"}, "batch = 1000000000:"},
		{[]string{"train", "-data", "bas", "-likelihood", "ais", "-ais-runs", huge}, "ais-runs = " + huge + ":"},
		{[]string{"train", "-data", "bas", "-likelihood", "ais", "-ais-betas", huge}, "ais-betas = " + huge + ":"},
		{[]string{"train", "-data", "bas", "-workers", "5000", "-epochs", "1"}, "workers = 5000: at most 4096"},
		{[]string{"sweep", "-data", "bas", "-workers", "5000", "-epochs", "1"}, "workers = 5000: at most 4096"},
		{[]string{"sweep", "-data", "bas", "-method", "ncg,dense", "-seed", "1-100000", "-dry-run"}, "seed: a sweep of at least 200000 runs"},
		{[]string{"eval", "-model", "run", "-likelihood", "ais", "-ais-runs", huge}, "ais-runs = " + huge + ":"},
		{[]string{"eval", "-model", "run", "-likelihood", "ais", "-ais-betas", huge}, "ais-betas = " + huge + ":"},
		{[]string{"eval", "-model", "run", "-raise", "1", "-raise-chains", huge}, "raise-chains = " + huge + ":"},
		{[]string{"eval", "-model", "run", "-bdmc", huge}, "bdmc = " + huge + ":"},
		{[]string{"eval", "-model", "run", "-likelihood", "ais", "-ais-max-betas", huge}, "ais-max-betas = " + huge + ":"},
		{[]string{"eval", "-model", "run", "-workers", "5000"}, "workers = 5000: at most 4096"},
		{[]string{"sample", "-model", "run", "-n", "100000000"}, "-n 100000000: the image would be"},
		{[]string{"sample", "-model", "run", "-scale", "100000"}, "-scale 100000: the image would be"},
	} {
		args := append(append([]string(nil), c.args...), "-quiet")
		if c.args[0] == "train" || c.args[0] == "sweep" {
			args = append(args, "-out", "refused")
		}
		if c.args[0] == "sample" {
			args = args[:len(args)-1] // sample has no -quiet
			args = append(args, "-out", filepath.Join(dir, "s.png"))
		}
		_, errb, code := ncgbench(t, dir, args...)
		if code != 2 || !strings.Contains(errb, c.want) || strings.Count(strings.TrimSpace(errb), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line saying %q", c.args, code, errb, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "refused")); err == nil {
			t.Errorf("%v: left a run directory", c.args)
			os.RemoveAll(filepath.Join(dir, "refused"))
		}
	}
}

// TestOutputPathsCheckedFirst: an output that cannot be written (a
// directory where a file is expected, a file where a directory is, an empty
// name, a file in a directory that does not exist) is refused with exit 2
// naming the flag, before any work: not after the samples are drawn or the
// benchmarks measured, and never by writing a temporary file beside the
// directory named.
func TestOutputPathsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	if _, errb, code := ncgbench(t, dir, "train", "-data", "bas", "-hidden", "8", "-epochs", "2", "-out", "run", "-quiet"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "-data", "bas", "-out", "file"}, "-out file is a file, not a directory"},
		{[]string{"train", "-data", "bas", "-out", ""}, "-out: empty directory name"},
		{[]string{"sweep", "-data", "bas", "-out", "file"}, "-out file is a file, not a directory"},
		{[]string{"report", "-out", "file", "run"}, "-out file is a file, not a directory"},
		{[]string{"sample", "-model", "run", "-out", "run"}, "-out run is a directory; give a file name"},
		{[]string{"sample", "-model", "run", "-out", ""}, "-out: empty file name"},
		{[]string{"sample", "-model", "run", "-masks", "run"}, "-masks run is a directory; give a file name"},
		{[]string{"sample", "-model", "run", "-out", "no/such/s.png"}, "-out no/such/s.png: no directory no/such"},
		{[]string{"bench", "-markdown", "run", "-run", "kernel/sigmoid/"}, "-markdown run is a directory; give a file name"},
	} {
		_, errb, code := ncgbench(t, dir, c.args...)
		if code != 2 || !strings.Contains(errb, c.want) || strings.Count(strings.TrimSpace(errb), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line saying %q", c.args, code, errb, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files left in the test's directory: %v", entries)
	}
}

// TestSampleStopsOnInterrupt: sample with more Gibbs steps than anyone
// waits for stops on Ctrl-C with exit status 130 within seconds, writing
// no image.
func TestSampleStopsOnInterrupt(t *testing.T) {
	dir := t.TempDir()
	if _, errb, code := ncgbench(t, dir, "train", "-data", "bas", "-hidden", "8", "-epochs", "2", "-out", "run", "-quiet"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb)
	}
	errb := newSyncBuffer()
	cmd := start(t, dir, errb, "sample", "-model", "run", "-steps", "2000000000", "-out", "s.png")
	time.Sleep(500 * time.Millisecond)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done // the one Wait (a second one, by start's cleanup, returns at once)
		t.Fatal("sample still running 10 s after Ctrl-C")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("exit %d, %q; want 130 and \"interrupted\"", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "s.png")); err == nil {
		t.Error("an interrupted sample wrote its image")
	}
}

// TestHugeModelFileRefused: a model file of a few hundred bytes that
// declares 65,536 × 32,768 units (X·H = 2³¹, the most a shape may say;
// 48 GiB of matrices to read, more than any machine we run on) is refused
// by eval and sample with exit 2 before anything is allocated, naming the
// file.
func TestHugeModelFileRefused(t *testing.T) {
	if m := physicalMemoryForTest(); m == 0 || m >= 48<<30 {
		t.Skipf("machine memory %d: not enough to tell the refusal apart", m)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "huge.npz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := npz.NewWriter(f)
	if err := w.Write("shape", []int64{65536, 784, 32768}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, args := range [][]string{
		{"eval", "-model", path, "-data", "bas"},
		{"sample", "-model", path, "-data", "bas", "-out", filepath.Join(dir, "s.png")},
	} {
		_, errb, code := ncgbench(t, dir, args...)
		if code != 2 || !strings.Contains(errb, "reading "+path+" needs at least") {
			t.Errorf("%v: exit %d, %q; want exit 2 naming the file and its memory", args, code, errb)
		}
	}
}

// physicalMemoryForTest is the machine's memory in bytes (0 if unknown).
func physicalMemoryForTest() uint64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	return uint64(si.Totalram) * uint64(si.Unit)
}
