package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/data"
)

// csvRows writes n rows of two real values, the k-th (a + k, 2a − k).
func csvRows(t *testing.T, path string, n int, a float64) {
	t.Helper()
	var b strings.Builder
	for k := range n {
		b.WriteString(strings.Join([]string{FormatFloat(a + float64(k)), FormatFloat(2*a - float64(k))}, ",") + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// stopAfter2 runs spec in dir and stops it after epoch 2, leaving a
// checkpoint.
func stopAfter2(t *testing.T, spec Spec, dir string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Run(ctx, spec, dir, Options{CheckpointEvery: EveryEpoch, Workers: 1, Progress: func(e Event) {
		if d, ok := e.(EpochDone); ok && d.Metrics.Epoch == 2 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopping after epoch 2: %v", err)
	}
}

// TestResumeRefusesOtherData: a run stopped, whose data file is then
// overwritten with other rows of the same shape, is refused on resuming,
// with a *ConfigError naming the flag and the file (the test file too);
// with its own rows back it resumes. Given by another path to the same
// bytes (a copy, its absolute path, a symbolic link) it is the same run,
// and ends with the bits of a run never stopped. A run directory of a version that recorded
// no digest resumes, and records it.
func TestResumeRefusesOtherData(t *testing.T) {
	t.Chdir(t.TempDir())
	csvRows(t, "x.csv", 20, 0.5)
	csvRows(t, "t.csv", 5, -1)
	spec, err := NewSpec(Settings{"data": "x.csv", "test-data": "t.csv", "visible": "gaussian", "method": "dense",
		"hidden": 3, "epochs": 4, "likelihood": "none"})
	if err != nil {
		t.Fatal(err)
	}
	stopAfter2(t, spec, "run")
	original, _ := os.ReadFile("x.csv")
	for _, c := range []struct {
		file, flag string
	}{{"x.csv", "-data x.csv"}, {"t.csv", "-test-data t.csv"}} {
		keep, _ := os.ReadFile(c.file)
		csvRows(t, c.file, strings.Count(string(keep), "\n"), 7) // other rows, the same shape
		_, err := Run(context.Background(), spec, "run", Options{Workers: 1})
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.flag+": the rows differ from those the run in run trained on") {
			t.Errorf("resuming on another %s: %v, want a ConfigError naming %s", c.file, err, c.flag)
		}
		if err := os.WriteFile(c.file, keep, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The same bytes by other paths: a copy (resumes at epoch 2 and
	// finishes), then the absolute path and a link (the finished run).
	if err := os.WriteFile("copy.csv", original, 0o644); err != nil {
		t.Fatal(err)
	}
	s := spec
	s.Data = "copy.csv"
	if _, err := Run(context.Background(), s, "run", Options{Workers: 1}); err != nil {
		t.Fatalf("resuming with -data copy.csv: %v", err)
	}
	abs, _ := filepath.Abs("x.csv")
	if err := os.Symlink(abs, "link.csv"); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{abs, "link.csv"} {
		s.Data = path
		if res, err := Run(context.Background(), s, "run", Options{Workers: 1}); err != nil || !res.Skipped {
			t.Errorf("the finished run by -data %s: %v, want it found finished", path, err)
		}
	}
	if _, err := Run(context.Background(), spec, "whole", Options{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(RunDir("run").ModelPath())
	b, _ := os.ReadFile(RunDir("whole").ModelPath())
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Error("the run resumed on a copy of its data differs from a run never stopped")
	}
	if !bytes.Equal(original, mustRead(t, "x.csv")) {
		t.Fatal("x.csv was not restored")
	}

	// A run directory of a version that recorded no digest.
	stopAfter2(t, spec, "old")
	var cfg map[string]json.RawMessage
	if err := json.Unmarshal(mustRead(t, RunDir("old").ConfigPath()), &cfg); err != nil || cfg["data_digest"] == nil {
		t.Fatalf("config.json has no data_digest: %v", err)
	}
	delete(cfg, "data_digest")
	if err := writeJSON(RunDir("old").ConfigPath(), cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), spec, "old", Options{Workers: 1}); err != nil {
		t.Fatalf("resuming a run without a digest: %v", err)
	}
	if d, err := RunDir("old").Digest(); err != nil || d == nil || *d != *digestOf(mustLoad(t, spec.Normalize())) {
		t.Errorf("the resumed run recorded %+v (%v), want the digest of its data", d, err)
	}
	// Finished, without a digest: found finished by the absolute path of
	// its file, the same file.
	if err := json.Unmarshal(mustRead(t, RunDir("old").ConfigPath()), &cfg); err != nil {
		t.Fatal(err)
	}
	delete(cfg, "data_digest")
	if err := writeJSON(RunDir("old").ConfigPath(), cfg); err != nil {
		t.Fatal(err)
	}
	s.Data = abs
	if res, err := Run(context.Background(), s, "old", Options{Workers: 1}); err != nil || !res.Skipped {
		t.Errorf("a finished run without a digest by -data %s: %v, want it found finished", abs, err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustLoad(t *testing.T, s Spec) (train, test *data.Set) {
	t.Helper()
	train, test, err := Load(s, "")
	if err != nil {
		t.Fatal(err)
	}
	return train, test
}

// TestSetDigest: the digest of a set depends on its rows, labels and
// scaling, not on its name or source; a set of other rows, labels or
// scaling has another.
func TestSetDigest(t *testing.T) {
	base := func() *data.Set {
		return &data.Set{Name: "a", N: 2, D: 2, X: []uint8{1, 0, 0, 1}, Labels: []int32{0, 1}, NumClasses: 2, Source: "here"}
	}
	real := func() *data.Set {
		return &data.Set{Name: "r", N: 2, D: 1, Real: []float32{0.5, -0.5},
			Scaling: &data.Scaling{Mode: data.RealStandardise, Offset: []float64{1}, Scale: []float64{2}, From: "x.csv"}}
	}
	d0, r0 := setDigest(base()), setDigest(real())
	renamed := base()
	renamed.Name, renamed.Source = "b", "there"
	moved := real()
	moved.Scaling.From = "/elsewhere/x.csv"
	if setDigest(renamed) != d0 || setDigest(moved) != r0 {
		t.Error("the digest depends on a set's name, source or file")
	}
	for name, s := range map[string]*data.Set{
		"a row":   {Name: "a", N: 2, D: 2, X: []uint8{1, 0, 1, 1}, Labels: []int32{0, 1}, NumClasses: 2},
		"a label": {Name: "a", N: 2, D: 2, X: []uint8{1, 0, 0, 1}, Labels: []int32{1, 1}, NumClasses: 2},
		"shape":   {Name: "a", N: 1, D: 4, X: []uint8{1, 0, 0, 1}, Labels: []int32{0}, NumClasses: 2},
	} {
		if setDigest(s) == d0 {
			t.Errorf("another %s, the same digest", name)
		}
	}
	other := real()
	other.Scaling.Offset[0] = 1.5
	value := real()
	value.Real[1] = -0.25
	if setDigest(other) == r0 || setDigest(value) == r0 {
		t.Error("another scaling or value, the same digest")
	}
}
