package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/unit"
)

// tinyStack is the Spec of a small deep model on bas: RBMs of 10 and 6
// hidden units (NCG, then dense), 3 pre-training epochs each and, for a
// DBM, 3 joint epochs of 10-row minibatches and 12 chains.
func tinyStack(t *testing.T, kind string, more Settings) Spec {
	t.Helper()
	given := Settings{"data": "bas", "model": kind, "hidden": "10,6", "method": "ncg,dense", "epochs": 3, "sampler": "pcd", "k": 2}
	if kind == "dbm" {
		given["joint-epochs"], given["joint-batch"], given["chains"], given["mean-field"], given["joint-lr"] = 3, 10, 12, 4, 0.02
	}
	for k, v := range more {
		given[k] = v
	}
	spec, err := NewSpec(given)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// stackBits reads the deep model of a finished run and returns every
// parameter of every RBM.
func stackBits(t *testing.T, dir string) [][]float32 {
	t.Helper()
	s, _, err := ReadStack(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]float32
	for _, m := range s.RBMs {
		out = append(out, m.W, m.A, m.AP, m.HiddenBias, m.VisibleBias)
	}
	return out
}

// metricsBits are a run's metrics.csv rows but the seconds.
func metricsBits(t *testing.T, dir string) []Metrics {
	t.Helper()
	rows, err := RunDir(dir).Metrics()
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rows[i].Seconds = 0
	}
	return rows
}

// TestStackRunResumes: a DBN and a DBM stopped after an epoch of the
// bottom RBM's pre-training, at the end of it, in the top RBM's and (DBM)
// in joint training resume from their run directories to the bits (of
// every RBM, and the metrics) of the run never stopped; every epoch of
// every phase has a row with its layer.
func TestStackRunResumes(t *testing.T) {
	for _, c := range []struct {
		kind   string
		stops  []int // the run's epochs after which it is stopped
		layers []int // the layer of each epoch's row
	}{
		{"dbn", []int{2, 3, 5}, []int{1, 1, 1, 2, 2, 2}},
		{"dbm", []int{2, 4, 7}, []int{1, 1, 1, 2, 2, 2, 0, 0, 0}},
	} {
		spec := tinyStack(t, c.kind, nil)
		if got := spec.TotalEpochs(); got != len(c.layers) {
			t.Fatalf("%s: %d epochs, want %d", c.kind, got, len(c.layers))
		}
		whole := filepath.Join(t.TempDir(), "whole")
		if _, err := Run(context.Background(), spec, whole, Options{Workers: 2}); err != nil {
			t.Fatal(err)
		}
		want, wantRows := stackBits(t, whole), metricsBits(t, whole)
		var layers []int
		for _, r := range wantRows {
			layers = append(layers, r.Layer)
		}
		if !slices.Equal(layers, c.layers) {
			t.Errorf("%s: rows of layers %v, want %v", c.kind, layers, c.layers)
		}
		for _, stop := range c.stops {
			dir := filepath.Join(t.TempDir(), "stopped")
			ctx, cancel := context.WithCancel(context.Background())
			_, err := Run(ctx, spec, dir, Options{CheckpointEvery: EveryEpoch, Workers: 1, Progress: func(e Event) {
				if d, ok := e.(EpochDone); ok && d.Metrics.Epoch == stop {
					cancel()
				}
			}})
			cancel()
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: stopping after epoch %d: %v", c.kind, stop, err)
			}
			if RunDir(dir).State() != StateResumes {
				t.Fatalf("%s stopped after epoch %d: state %s", c.kind, stop, RunDir(dir).State())
			}
			var resumedAt int
			res, err := Run(context.Background(), spec, dir, Options{Workers: 3, Progress: func(e Event) {
				if r, ok := e.(Resumed); ok {
					resumedAt = r.Epoch
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			// Stopped after a pre-training phase's last epoch, training
			// stops before it draws the next RBM's data, with the
			// checkpoint of that epoch.
			wantAt := stop
			if resumedAt != wantAt || res.ResumedAt != wantAt {
				t.Errorf("%s stopped after epoch %d: resumed at %d (result: %d), want %d", c.kind, stop, resumedAt, res.ResumedAt, wantAt)
			}
			for i, a := range stackBits(t, dir) {
				if !slices.Equal(a, want[i]) {
					t.Errorf("%s stopped after epoch %d: array %d differs from the run never stopped", c.kind, stop, i)
				}
			}
			if got := metricsBits(t, dir); !equalRows(got, wantRows) {
				t.Errorf("%s stopped after epoch %d: metrics\n%+v\nwant\n%+v", c.kind, stop, got, wantRows)
			}
		}
	}
}

// equalRows compares metrics rows, NaN equal to NaN.
func equalRows(a, b []Metrics) bool {
	return slices.EqualFunc(a, b, func(x, y Metrics) bool {
		return slices.EqualFunc(x.values(), y.values(), func(u, v float64) bool { return u == v || (math.IsNaN(u) && math.IsNaN(v)) }) &&
			x.Layer == y.Layer
	})
}

// TestStackRunRefusesAnotherStack: a run directory of one stack (finished,
// or stopped with its checkpoint) is refused for another stack, the
// difference named by its flag, and a checkpoint of another stack copied
// into it too; nothing in the directory changes.
func TestStackRunRefusesAnotherStack(t *testing.T) {
	a, b := tinyStack(t, "dbm", nil), tinyStack(t, "dbm", Settings{"hidden": "10,5"})
	root := t.TempDir()
	finished, stopped, other := filepath.Join(root, "finished"), filepath.Join(root, "stopped"), filepath.Join(root, "other")
	if _, err := Run(context.Background(), a, finished, Options{}); err != nil {
		t.Fatal(err)
	}
	stopAfter2(t, a, stopped)
	stopAfter2(t, b, other)
	for _, c := range []struct {
		dir  string
		spec Spec
		want string
	}{
		{finished, b, "-hidden: 10,6 vs 10,5"},
		{stopped, b, "-hidden: 10,6 vs 10,5"},
		{finished, tinyStack(t, "dbn", nil), "-model: \"dbm\" vs \"dbn\""},
		{stopped, tinyStack(t, "dbm", Settings{"method": "ncg"}), "-method: ncg,dense vs ncg"},
		{stopped, tinyStack(t, "dbm", Settings{"joint-epochs": 4}), "-joint-epochs: 3 vs 4"},
		{stopped, func() Spec { s := a; s.Deep = Deep{}; return s.Normalize() }(), "-model: \"dbm\" vs absent"},
	} {
		before := dirFiles(t, c.dir)
		_, err := Run(context.Background(), c.spec, c.dir, Options{})
		if err == nil || !strings.Contains(err.Error(), "another configuration") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s for %s: %v, want another configuration naming %s", filepath.Base(c.dir), RunName(c.spec), err, c.want)
		}
		if after := dirFiles(t, c.dir); !equalFiles(before, after) {
			t.Errorf("%s: refused run changed the directory", filepath.Base(c.dir))
		}
	}
	// The other stack's checkpoint in the stopped run's directory.
	ckpt, err := os.ReadFile(RunDir(other).CheckpointPath())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(RunDir(stopped).CheckpointPath(), ckpt, 0o644); err != nil {
		t.Fatal(err)
	}
	before := dirFiles(t, stopped)
	_, err = Run(context.Background(), a, stopped, Options{})
	if err == nil || !strings.Contains(err.Error(), "checkpoint "+RunDir(stopped).CheckpointPath()+" belongs to another configuration") ||
		!strings.Contains(err.Error(), "-hidden: 10,5 vs 10,6") {
		t.Errorf("another stack's checkpoint: %v", err)
	}
	if after := dirFiles(t, stopped); !equalFiles(before, after) {
		t.Error("refusing another stack's checkpoint changed the directory")
	}
}

// dirFiles reads every file of dir but its lock.
func dirFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if e.Name() == LockFile {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func equalFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// TestStackSweep: a sweep of deep models separates its stacks with ':'
// (commas are a stack's layers, as in train): two stacks make two runs,
// named by their layers, each in its own directory with its own stack;
// a sweep of RBMs keeps its comma lists.
func TestStackSweep(t *testing.T) {
	out := t.TempDir()
	points, err := Grid{Settings: Settings{"data": "bas", "model": "dbn", "hidden": "10,6:8", "epochs": 2}}.Expand(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range points {
		names = append(names, p.Name)
	}
	if want := []string{"bas-dbn-ncg-h10_6-seed1", "bas-dbn-ncg-h8-seed1"}; !slices.Equal(names, want) {
		t.Fatalf("runs %v, want %v", names, want)
	}
	for _, o := range Sweep(context.Background(), points, SweepOptions{Parallel: 2}) {
		if o.Status != Trained {
			t.Fatalf("%s: %s %v", o.Point.Name, o.Status, o.Err)
		}
	}
	for _, c := range []struct {
		dir   string
		sizes []int
	}{{points[0].Dir, []int{16, 10, 6}}, {points[1].Dir, []int{16, 8}}} {
		_, f, err := ReadStack(c.dir)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.Sizes, c.sizes) || f.Kind != engine.DBN {
			t.Errorf("%s: %s of %v, want dbn of %v", c.dir, f.Kind, f.Sizes, c.sizes)
		}
	}
	// A grid file's lists: a stack as a string or an array, and models
	// of both kinds, the RBM's -hidden one number.
	points, err = Grid{Settings: Settings{"data": "bas", "model": []any{"rbm", "dbm"}, "hidden": []any{"9", []any{9.0, 4.0}}}}.Expand(out)
	if err == nil || !strings.Contains(err.Error(), "hidden = 9,4: an RBM has one hidden layer") {
		t.Errorf("an RBM given a stack in a sweep: %v", err)
	}
	points, err = Grid{Settings: Settings{"data": "bas", "model": "dbm", "hidden": []any{"9", []any{9.0, 4.0}}}}.Expand(out)
	if err != nil || len(points) != 2 || !slices.Equal(points[1].Spec.Deep.Hidden, []int{4}) {
		t.Errorf("a grid file's stacks: %v %+v", err, points)
	}
	points, err = Grid{Settings: Settings{"data": "bas", "hidden": "9,4"}}.Expand(out)
	if err != nil || len(points) != 2 || points[1].Spec.Engine.Hidden != 4 || points[1].Spec.IsDeep() {
		t.Errorf("an RBM sweep's comma list: %v %+v", err, points)
	}
}

// TestStackSpec: an RBM's Spec has no stack in its identity, with or
// without -model rbm; a deep model's methods have one spelling; Stack
// gives every RBM the shared settings with its own layer and method,
// binary units above the visible layer, and a DBM -centre for joint
// training too.
func TestStackSpec(t *testing.T) {
	plain, err := NewSpec(Settings{"data": "bas"})
	if err != nil {
		t.Fatal(err)
	}
	rbm, err := NewSpec(Settings{"data": "bas", "model": "rbm"})
	if err != nil {
		t.Fatal(err)
	}
	if id := mustIdentity(t, rbm); !bytes.Equal(id, mustIdentity(t, plain)) || bytes.Contains(id, []byte(`"deep"`)) {
		t.Errorf("-model rbm: identity %s, want %s without a stack", id, mustIdentity(t, plain))
	}
	if RunName(rbm) != "bas-ncg-seed1" {
		t.Errorf("RBM's name %s", RunName(rbm))
	}
	one, two := tinyStack(t, "dbm", Settings{"method": "line"}), tinyStack(t, "dbm", Settings{"method": "line,line"})
	if !bytes.Equal(mustIdentity(t, one), mustIdentity(t, two)) || one.Deep.Methods != nil {
		t.Errorf("-method line and line,line: %s vs %s", mustIdentity(t, one), mustIdentity(t, two))
	}
	g := tinyStack(t, "dbm", Settings{"data": "mnist", "visible": "gaussian", "learn-sigma": true, "real": "unit", "hidden": "20,7,5", "method": "ncg,dense,line", "v": 3,
		"momentum": 0.5, "joint-momentum": 0.3, "joint-l2": 0.001, "gibbs": 3})
	c := g.Stack()
	if c.Kind != engine.DBM || len(c.Layers) != 3 || c.Seed != 1 {
		t.Fatalf("stack %+v", c)
	}
	for l, want := range []struct {
		hidden  int
		method  engine.Method
		visible unit.Type
		learn   bool
	}{{20, engine.NCG, unit.Gaussian, true}, {7, engine.Dense, unit.Binary, false}, {5, engine.Line, unit.Binary, false}} {
		lc := c.Layers[l]
		if lc.Hidden != want.hidden || lc.Method != want.method || lc.Visible != want.visible || lc.LearnSigma != want.learn ||
			lc.Momentum != 0.5 || lc.Epochs != 3 || lc.K != 2 || lc.Sampler != engine.PersistentCD || lc.Seed != 0 {
			t.Errorf("layer %d: %+v", l+1, lc)
		}
	}
	if j := c.Joint; j.Epochs != 3 || j.Batch != 10 || j.Chains != 12 || j.MeanField != 4 || j.Gibbs != 3 || j.LR != 0.02 || j.Momentum != 0.3 || j.L2 != 0.001 || j.Centre {
		t.Errorf("joint %+v", j)
	}
	if g.TotalEpochs() != 3*3+3 {
		t.Errorf("%d epochs", g.TotalEpochs())
	}
	// The run's epochs: RBM 1's 1–3, RBM 2's 4–6, RBM 3's 7–9, joint 10–12.
	for n := 1; n <= g.TotalEpochs(); n++ {
		want := []int{1, 1, 1, 2, 2, 2, 3, 3, 3, 0, 0, 0}[n-1]
		if l := g.layerOf(n); l != want || g.epochOf(l, (n-1)%3+1) != n {
			t.Errorf("epoch %d: layer %d, want %d; back %d", n, l, want, g.epochOf(l, (n-1)%3+1))
		}
	}
	centred := tinyStack(t, "dbm", Settings{"centre": true})
	if c := centred.Stack(); !c.Joint.Centre || !c.Layers[0].Centre || !c.Layers[1].Centre || centred.Deep.Joint.Centre {
		t.Errorf("-centre: %+v", c)
	}
	if c := tinyStack(t, "dbn", Settings{"centre": true}).Stack(); c.Joint != (engine.JointConfig{}) || !c.Layers[1].Centre {
		t.Errorf("a DBN's stack %+v", c)
	}
	// Every default of joint training is engine.DefaultJoint's (bas's
	// minibatch aside).
	d, err := NewSpec(Settings{"data": "mnist", "model": "dbm"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Deep.Joint != engine.DefaultJoint() {
		t.Errorf("MNIST DBM's joint training %+v, engine.DefaultJoint %+v", d.Deep.Joint, engine.DefaultJoint())
	}
}

// TestStackMetricsFile: a deep model's metrics.csv has the layer column
// and reads back; an RBM's has none, as before it existed; a bad layer is
// refused naming the line.
func TestStackMetricsFile(t *testing.T) {
	dir := t.TempDir()
	rows := []Metrics{{Epoch: 1, Layer: 1, NLL: nan}, {Epoch: 2, Layer: 2, NLL: nan}, {Epoch: 3, Layer: 0, NLL: 3}}
	path := filepath.Join(dir, "m.csv")
	if err := WriteMetrics(path, rows); err != nil {
		t.Fatal(err)
	}
	back, err := ReadMetrics(path)
	if err != nil || !equalRows(back, rows) {
		t.Errorf("read back %+v (%v), want %+v", back, err, rows)
	}
	b, _ := os.ReadFile(path)
	if header, _, _ := strings.Cut(string(b), "\n"); !strings.HasSuffix(header, ",recon_error,layer") {
		t.Errorf("header %q", header)
	}
	if err := WriteMetrics(path, []Metrics{{Epoch: 1}}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	if header, _, _ := strings.Cut(string(b), "\n"); header != strings.Join(Columns, ",") {
		t.Errorf("an RBM's header %q", header)
	}
	os.WriteFile(path, []byte(strings.Join(append(slices.Clone(Columns), "layer"), ",")+"\n1,0,0,0,0,0,0,0,0,0,0,0,0,x\n"), 0o644)
	if _, err := ReadMetrics(path); err == nil || !strings.Contains(err.Error(), "line 2, column layer") {
		t.Errorf("a bad layer: %v", err)
	}
	// In JSON the layer is left out at 0.
	j, _ := json.Marshal(Metrics{Epoch: 1, Layer: 2})
	var m Metrics
	if err := json.Unmarshal(j, &m); err != nil || m.Layer != 2 {
		t.Errorf("JSON %s read back as layer %d (%v)", j, m.Layer, err)
	}
	if j, _ := json.Marshal(Metrics{Epoch: 1}); strings.Contains(string(j), "layer") {
		t.Errorf("an RBM's metrics in JSON: %s", j)
	}
}

// TestReadStackRefuses: files that do not form the deep model stack.json
// describes are refused, naming the file.
func TestReadStackRefuses(t *testing.T) {
	src := filepath.Join(t.TempDir(), "run")
	if _, err := Run(context.Background(), tinyStack(t, "dbn", nil), src, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		change func(dir string)
		want   string
	}{
		{"swapped files", func(dir string) {
			os.Rename(filepath.Join(dir, "model-1.npz"), filepath.Join(dir, "x"))
			os.Rename(filepath.Join(dir, "model-2.npz"), filepath.Join(dir, "model-1.npz"))
			os.Rename(filepath.Join(dir, "x"), filepath.Join(dir, "model-2.npz"))
		}, "model-1.npz is not RBM 1 of the deep model"},
		{"another directory", func(dir string) { editStack(t, dir, func(f *StackFile) { f.Files[1] = "../model-2.npz" }) }, `file 2 is "../model-2.npz"`},
		{"kind", func(dir string) { editStack(t, dir, func(f *StackFile) { f.Kind = "rbm" }) }, `kind "rbm"`},
		{"sizes", func(dir string) { editStack(t, dir, func(f *StackFile) { f.Sizes = f.Sizes[:2] }) }, "2 sizes and 2 methods for 2 RBMs"},
		{"other sizes", func(dir string) { editStack(t, dir, func(f *StackFile) { f.Sizes[2] = 7 }) }, "stack.json: it has 10 × 6 units, stack.json says 10 × 7"},
		{"method", func(dir string) { editStack(t, dir, func(f *StackFile) { f.Methods[1] = engine.NCG }) }, "connection strengths A′: false, its method ncg"},
		{"missing", func(dir string) { os.Remove(filepath.Join(dir, "model-2.npz")) }, "model-2.npz"},
	} {
		dir := filepath.Join(t.TempDir(), "copy")
		os.Mkdir(dir, 0o755)
		for _, f := range []string{"stack.json", "model-1.npz", "model-2.npz"} {
			b, _ := os.ReadFile(filepath.Join(src, f))
			os.WriteFile(filepath.Join(dir, f), b, 0o644)
		}
		if _, _, err := ReadStack(dir); err != nil {
			t.Fatalf("the copy: %v", err)
		}
		c.change(dir)
		if _, _, err := ReadStack(filepath.Join(dir, "stack.json")); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

func editStack(t *testing.T, dir string, edit func(*StackFile)) {
	t.Helper()
	var f StackFile
	if err := readJSON(filepath.Join(dir, "stack.json"), &f); err != nil {
		t.Fatal(err)
	}
	edit(&f)
	if err := writeJSON(filepath.Join(dir, "stack.json"), f); err != nil {
		t.Fatal(err)
	}
}

// TestStackEvaluatesWholeModels: with -eval-every 1 a DBM is measured in
// joint training only and a DBN during its top RBM's training only; the
// epochs before have no NLL (the stack there is not the model the run
// makes).
func TestStackEvaluatesWholeModels(t *testing.T) {
	for _, kind := range []string{"dbm", "dbn"} {
		spec := tinyStack(t, kind, Settings{"eval-every": 1})
		dir := filepath.Join(t.TempDir(), kind)
		if _, err := Run(context.Background(), spec, dir, Options{Workers: 2}); err != nil {
			t.Fatal(err)
		}
		for _, m := range metricsBits(t, dir) {
			whole := m.Layer == 0 || (kind == "dbn" && m.Layer == 2)
			if whole != !math.IsNaN(m.NLL) {
				t.Errorf("%s: epoch %d (layer %d) has NLL %v", kind, m.Epoch, m.Layer, m.NLL)
			}
		}
	}
}
