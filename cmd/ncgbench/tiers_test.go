package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// setTier rewrites the kernel tier that config.json in dir records for
// the run's latest invocation, as if it had run on another machine.
func setTier(t *testing.T, dir, tier string) {
	t.Helper()
	p := filepath.Join(dir, "config.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	c["meta"]["kernel_tier"] = tier
	if b, err = json.Marshal(c); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestOtherTierSaidAtTheStart: a run resumed on another kernel tier than
// the one that trained it says so at the start, naming both tiers, even
// with -quiet, and a run resumed on its own tier says nothing; eval says so
// of a model trained on another tier; report says so of a group whose runs
// were trained on different tiers (a sweep across machines), on stderr and
// under its table.
func TestOtherTierSaidAtTheStart(t *testing.T) {
	dir := t.TempDir()
	args := []string{"train", "-data", "bas", "-hidden", "8", "-epochs", "3", "-out", "run", "-quiet", "-checkpoint-every", "0"}
	if _, errb, code := ncgbench(t, dir, args...); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb)
	}
	tierOut, _, _ := ncgbench(t, dir, "version")
	_, tier, _ := strings.Cut(tierOut, "kernel tier ")
	tier, _, _ = strings.Cut(tier, " ")
	// Without result.json the run resumes from its last checkpoint, at its
	// final evaluation.
	resume := func() string {
		t.Helper()
		if err := os.Remove(filepath.Join(dir, "run", "result.json")); err != nil {
			t.Fatal(err)
		}
		_, errb, code := ncgbench(t, dir, args...)
		if code != 0 {
			t.Fatalf("resume: exit %d: %s", code, errb)
		}
		return errb
	}
	if errb := resume(); strings.Contains(errb, "warning") {
		t.Errorf("resumed on its own tier %s: %q", tier, errb)
	}
	setTier(t, filepath.Join(dir, "run"), "faraway")
	want := "ncgbench train: warning: run was trained on kernel tier faraway and resumes on tier " + tier + ":"
	if errb := resume(); !strings.Contains(errb, want) {
		t.Errorf("resumed on another tier: stderr %q, want %q", errb, want)
	}
	// The resumed run's config.json keeps the other tier among its earlier
	// invocations: eval of the run, or of its model file, warns.
	for _, model := range []string{"run", "run/model.npz"} {
		_, errb, code := ncgbench(t, dir, "eval", "-model", model, "-quiet")
		want := "ncgbench eval: warning: " + model + " was trained on kernel tier faraway and is evaluated on tier " + tier + ":"
		if code != 0 || !strings.Contains(errb, want) {
			t.Errorf("eval %s: exit %d, stderr %q; want %q", model, code, errb, want)
		}
	}
	// A sweep of two seeds, one "from another machine".
	if _, errb, code := ncgbench(t, dir, "sweep", "-data", "bas", "-hidden", "8", "-epochs", "2", "-seed", "1-2", "-out", "sw", "-quiet"); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, errb)
	}
	out, errb, code := ncgbench(t, dir, "report", "-out", "rep", "-quiet", "sw")
	if code != 0 || strings.Contains(errb, "warning") || strings.Contains(out, "‡") {
		t.Errorf("report of one tier: exit %d, %q\n%s", code, errb, out)
	}
	setTier(t, filepath.Join(dir, "sw", "bas-ncg-seed1"), "faraway")
	out, errb, code = ncgbench(t, dir, "report", "-out", "rep", "-quiet", "sw")
	wantErr := "ncgbench report: warning: runs of one group trained on different kernel tiers (bas NCG"
	if code != 0 || !strings.Contains(errb, wantErr) || !strings.Contains(errb, "faraway") || !strings.Contains(errb, tier) || !strings.Contains(out, "| 2 ‡ |") {
		t.Errorf("report of two tiers: exit %d, stderr %q, want %q; table:\n%s", code, errb, wantErr, out)
	}
}

// TestEvalRefusesAForeignModel: a model.npz copied into the directory of a
// run of another shape is refused, naming the difference; the run's own
// model is evaluated.
func TestEvalRefusesAForeignModel(t *testing.T) {
	dir := t.TempDir()
	for _, r := range []struct{ out, hidden string }{{"a", "8"}, {"b", "6"}} {
		if _, errb, code := ncgbench(t, dir, "train", "-data", "bas", "-hidden", r.hidden, "-epochs", "2", "-out", r.out, "-quiet"); code != 0 {
			t.Fatalf("train: exit %d: %s", code, errb)
		}
	}
	if _, errb, code := ncgbench(t, dir, "eval", "-model", "b/model.npz", "-data", "bas", "-quiet"); code != 0 {
		t.Errorf("eval of the run's own model: exit %d: %s", code, errb)
	}
	b, err := os.ReadFile(filepath.Join(dir, "a", "model.npz"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b", "model.npz"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errb, code := ncgbench(t, dir, "eval", "-model", "b/model.npz", "-data", "bas", "-quiet")
	want := "b/model.npz is not the model of the run in b (the model has 8 hidden units, the run 6)"
	if code != 1 || !strings.Contains(errb, want) {
		t.Errorf("eval of a foreign model: exit %d, %q; want exit 1 and %q", code, errb, want)
	}
	// sample reads models through the same loader.
	_, errb, code = ncgbench(t, dir, "sample", "-model", "b", "-out", "s.png")
	if code != 1 || !strings.Contains(errb, want) {
		t.Errorf("sample of a foreign model: exit %d, %q; want exit 1 and %q", code, errb, want)
	}
}
