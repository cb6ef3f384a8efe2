package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ncg-rbm/ncg/engine"
)

// TestGridExpand: the runs of a grid, their names, order and settings,
// written out by hand from the documented rules: axes expand in table
// order with the seed fastest, an NCG-only axis expands for NCG runs
// alone, names carry the axes of more than one value, the data set's
// defaults fill what was not given, and a setting a run does not use is
// dropped (the line width of NCG runs, p of line runs).
func TestGridExpand(t *testing.T) {
	g := Grid{Settings: Settings{"data": "bas", "epochs": 7, "method": "ncg,line", "p": []float64{0.25, 0.5}, "seed": "2,1"}}
	points, err := g.Expand("out")
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		name      string
		method    engine.Method
		p         float64
		seed      uint64
		lineWidth int
	}
	want := []run{
		{"bas-ncg-p0.25-seed2", engine.NCG, 0.25, 2, 0},
		{"bas-ncg-p0.25-seed1", engine.NCG, 0.25, 1, 0},
		{"bas-ncg-p0.5-seed2", engine.NCG, 0.5, 2, 0},
		{"bas-ncg-p0.5-seed1", engine.NCG, 0.5, 1, 0},
		{"bas-line-seed2", engine.Line, 0, 2, 8},
		{"bas-line-seed1", engine.Line, 0, 1, 8},
	}
	if len(points) != len(want) {
		t.Fatalf("%d runs, want %d", len(points), len(want))
	}
	for i, p := range points {
		w, e := want[i], p.Spec.Engine
		got := run{p.Name, e.Method, e.P, e.Seed, e.LineWidth}
		if got != w || p.Index != i || p.Dir != filepath.Join("out", w.name) {
			t.Errorf("run %d: %+v in %s (index %d), want %+v", i, got, p.Dir, p.Index, w)
		}
		// bars-and-stripes' defaults, except the epochs given.
		lrConn := 0.25 // NCG's alone
		if e.Method != engine.NCG {
			lrConn = 0
		}
		if e.Hidden != 16 || e.Batch != 10 || e.LR != 0.05 || e.LRConn != lrConn || e.Epochs != 7 || p.Spec.EvalEvery != 250 {
			t.Errorf("run %d: hidden %d batch %d lr %v lr-conn %v epochs %d eval-every %d, want bas's 16 10 0.05 %v, 7 given, 250",
				i, e.Hidden, e.Batch, e.LR, e.LRConn, e.Epochs, p.Spec.EvalEvery, lrConn)
		}
	}
	g.Order = SeedOrder
	points, err = g.Expand("out")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i, p := range points {
		names = append(names, p.Name)
		if p.Index != i {
			t.Errorf("seed order: run %s has index %d at %d", p.Name, p.Index, i)
		}
	}
	bySeed := []string{want[0].name, want[2].name, want[4].name, want[1].name, want[3].name, want[5].name}
	if !reflect.DeepEqual(names, bySeed) {
		t.Errorf("seed order %v, want %v", names, bySeed)
	}

	var ce *ConfigError
	for _, c := range []struct {
		what string
		set  Settings
	}{
		{"a repeated seed", Settings{"seed": "1,1"}},
		{"hidden -1", Settings{"seed": nil, "hidden": "4,-1"}},
		{"a list of a setting that is not an axis", Settings{"k": "1,2"}},
		{"gamma for dense and line runs", Settings{"method": "dense,line", "gamma": 0.3}},
		{"an unknown setting", Settings{"hiden": 3}},
	} {
		h := Grid{Settings: Settings{"data": "bas", "epochs": 7}}
		for k, v := range c.set {
			if v != nil {
				h.Settings[k] = v
			}
		}
		if _, err := h.Expand("out"); !errors.As(err, &ce) {
			t.Errorf("%s: %v, want a ConfigError", c.what, err)
		}
	}
}

// TestSweepMatchesLoneRuns: a sweep of several runs at once writes the
// same model, bit for bit, as each run alone with other workers, and a
// second sweep skips every run.
func TestSweepMatchesLoneRuns(t *testing.T) {
	g := Grid{Settings: Settings{"data": "bas", "likelihood": "none", "epochs": 4, "method": "dense,ncg,line", "seed": []int{1, 2}}}
	dir := t.TempDir()
	points, err := g.Expand(filepath.Join(dir, "sweep"))
	if err != nil {
		t.Fatal(err)
	}
	// Done and the runs' progress events write to one bare buffer: the race
	// detector sees any write not serialised.
	var ended []int
	var progress bytes.Buffer
	opts := SweepOptions{Parallel: 3, Run: Options{Workers: 1, Progress: func(e Event) { fmt.Fprintf(&progress, "%T\n", e) }}, Done: func(o Outcome, n int) {
		ended = append(ended, n)
		progress.WriteString("ended " + o.Point.Name + "\n")
	}}
	out := Sweep(context.Background(), points, opts)
	if len(out) != len(points) || len(ended) != len(points) {
		t.Fatalf("%d outcomes, %d calls of Done, want %d", len(out), len(ended), len(points))
	}
	if !reflect.DeepEqual(ended, []int{1, 2, 3, 4, 5, 6}) || bytes.Count(progress.Bytes(), []byte("ended ")) != 6 {
		t.Errorf("Done counted %v and wrote %d lines, want 1…6 and 6", ended, bytes.Count(progress.Bytes(), []byte("ended ")))
	}
	for i, o := range out {
		if o.Status != Trained || o.Err != nil || o.Point.Name != points[i].Name {
			t.Fatalf("run %d: %s %s %v, want %s trained", i, o.Point.Name, o.Status, o.Err, points[i].Name)
		}
		lone := filepath.Join(dir, "lone", o.Point.Name)
		if _, err := Run(context.Background(), o.Point.Spec, lone, Options{Workers: 2}); err != nil {
			t.Fatal(err)
		}
		a, err1 := os.ReadFile(filepath.Join(o.Point.Dir, "model.npz"))
		b, err2 := os.ReadFile(filepath.Join(lone, "model.npz"))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: the sweep's model differs from a lone run's (%v, %v)", o.Point.Name, err1, err2)
		}
	}
	for _, o := range Sweep(context.Background(), points, opts) {
		if o.Status != Skipped || o.Result == nil {
			t.Errorf("second sweep: %s %s, want skipped", o.Point.Name, o.Status)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, o := range Sweep(ctx, points, opts) {
		if o.Status != NotStarted {
			t.Errorf("cancelled sweep: %s %s, want not started", o.Point.Name, o.Status)
		}
	}
}
