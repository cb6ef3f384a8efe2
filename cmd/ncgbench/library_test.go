package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/experiment"
)

// TestLibraryTrainsWhatTheCommandTrains: a Go program that gives
// experiment.NewSpec the settings of an ncgbench train command gets the
// same Spec (the SET authors' procedure with their settings, from
// docs/training.md: CD-1, N(0, 0.05²) weights, a decay of 2·10⁻⁷ per
// update, here L2 = 2e-7/lr with bars-and-stripes' lr 0.05), trains the
// same model.npz bit for bit, and shares the run directory: the command
// on the Go program's directory finds the run finished instead of
// refusing it.
func TestLibraryTrainsWhatTheCommandTrains(t *testing.T) {
	dir := t.TempDir()
	spec, err := experiment.NewSpec(experiment.Settings{"data": "bas", "method": engine.SET, "set-procedure": "mocanu", "epsilon": 3, "epochs": 3, "seed": 2})
	if err != nil {
		t.Fatal(err)
	}
	e := spec.Engine
	if e.K != 1 || e.Init != engine.Normal || e.InitScale != 0.05 || e.L2 != 2e-7/0.05 || e.LR != 0.05 || e.Hidden != 16 {
		t.Errorf("the SET authors' settings on bas: k %d, init %s %v, l2 %v, lr %v, hidden %d; want 1, normal 0.05, 4e-06, 0.05, 16",
			e.K, e.Init, e.InitScale, e.L2, e.LR, e.Hidden)
	}
	goDir := filepath.Join(dir, "go")
	if _, err := experiment.Run(context.Background(), spec, goDir, experiment.Options{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	_, errb, code := ncgbench(t, dir, "train", "-data", "bas", "-method", "set", "-set-procedure", "mocanu", "-epsilon", "3", "-epochs", "3", "-seed", "2", "-out", "cmd", "-quiet")
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb)
	}
	a, err1 := os.ReadFile(filepath.Join(goDir, "model.npz"))
	b, err2 := os.ReadFile(filepath.Join(dir, "cmd", "model.npz"))
	if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
		t.Errorf("model.npz of the Go program and of the command differ (%v, %v)", err1, err2)
	}
	out, errb, code := ncgbench(t, dir, "train", "-data", "bas", "-method", "set", "-set-procedure", "mocanu", "-epsilon", "3", "-epochs", "3", "-seed", "2", "-out", "go", "-quiet")
	if code != 0 || !strings.Contains(out, "finished earlier") {
		t.Errorf("train on the Go program's directory: exit %d, %s%s; want it found finished", code, out, errb)
	}
}

// TestHandBuiltSpecSharesTheCommandsDirectory: a Spec written by hand,
// with AIS and parallel-tempering settings left at zero and settings a
// dense run does not use (γ, p, ε, ζ, the line width) at engine defaults,
// is the run `ncgbench train` makes of the same effective settings.
func TestHandBuiltSpecSharesTheCommandsDirectory(t *testing.T) {
	dir := t.TempDir()
	e := engine.DefaultConfig() // NCG's γ, p, …: unused by a dense run
	e.Method, e.Hidden, e.Batch, e.LR, e.Epochs, e.Seed = engine.Dense, 16, 10, 0.05, 3, 1
	e.Sampler = engine.ParallelTempering // temperatures and min-beta: 0, the defaults 10 and 0.1
	spec := experiment.Spec{Data: "bas", Engine: e, EvalEvery: 250}
	if _, err := experiment.Run(context.Background(), spec, filepath.Join(dir, "go"), experiment.Options{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	stored, err := experiment.RunDir(filepath.Join(dir, "go")).Spec()
	if err != nil {
		t.Fatal(err)
	}
	if s := stored.Engine; s.Temperatures != 10 || s.MinBeta != 0.1 || s.Gamma != 0 || s.P != 0 || s.Epsilon != 0 || s.LineWidth != 0 {
		t.Errorf("stored: temperatures %d, min-beta %v, γ %v, p %v, ε %v, v %d; want 10, 0.1 and nothing unused",
			s.Temperatures, s.MinBeta, s.Gamma, s.P, s.Epsilon, s.LineWidth)
	}
	out, errb, code := ncgbench(t, dir, "train", "-data", "bas", "-method", "dense", "-sampler", "pt", "-epochs", "3", "-out", "go", "-quiet")
	if code != 0 || !strings.Contains(out, "finished earlier") {
		t.Errorf("train on the hand-built run's directory: exit %d, %s%s; want it found finished", code, out, errb)
	}
}
