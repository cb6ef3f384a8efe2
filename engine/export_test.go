package engine_test

import (
	"archive/zip"
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/unit"
)

func TestReadNPZ(t *testing.T) {
	for _, method := range []engine.Method{engine.NCG, engine.Dense} {
		cfg := engine.DefaultConfig()
		cfg.Method, cfg.Hidden, cfg.Batch = method, 5, 2
		d := &engine.Data{N: 4, D: 6, X: []uint8{1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0}, Labels: []int32{0, 1, 2, 1}, Classes: 3}
		m, got := roundTrip(t, cfg, d)
		if !reflect.DeepEqual(got, m) {
			t.Errorf("%s: ReadNPZ(ExportNPZ(m)) differs from m:\n%+v\n%+v", method, got, m)
		}
	}
	// A Gaussian model with learned σ: σ and log σ² come back exactly.
	cfg := engine.DefaultConfig()
	cfg.Method, cfg.Hidden, cfg.Batch, cfg.LR, cfg.Epochs = engine.NCG, 5, 2, 0.05, 2
	cfg.Visible, cfg.LearnSigma = unit.Gaussian, true
	d := &engine.Data{N: 4, D: 3, Real: []float32{0.5, -1, 2, 1.5, 0, -0.5, -2, 1, 0.25, 0.75, -0.25, 1}}
	tr, err := engine.New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Train(context.Background(), engine.Options{}); err != nil {
		t.Fatal(err)
	}
	m := tr.Model()
	path := filepath.Join(t.TempDir(), "gauss.npz")
	if err := m.ExportNPZ(path); err != nil {
		t.Fatal(err)
	}
	got, err := engine.ReadNPZ(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Errorf("gaussian: ReadNPZ(ExportNPZ(m)) differs from m:\n%+v\n%+v", got, m)
	}
	if !(got.Visible == unit.Gaussian) || got.Sigma[0] == 1 {
		t.Errorf("gaussian: read back Gaussian = %v, σ = %v (want learned σ)", (got.Visible == unit.Gaussian), got.Sigma)
	}
	// A categorical classification model: its groups, the label group
	// last, come back and make it categorical.
	cfg = engine.DefaultConfig()
	cfg.Method, cfg.Hidden, cfg.Batch, cfg.Visible = engine.NCG, 4, 2, unit.Categorical
	cd := &engine.Data{N: 2, D: 5, X: []uint8{0, 1, 1, 0, 0, 1, 0, 0, 0, 1}, Groups: data.Groups{0, 2, 5}, Labels: []int32{1, 0}, Classes: 2}
	cm, cgot := roundTrip(t, cfg, cd)
	if !reflect.DeepEqual(cgot, cm) || cgot.Visible != unit.Categorical || !reflect.DeepEqual(cgot.Groups, data.Groups{0, 2, 5, 7}) {
		t.Errorf("categorical: read back %v with groups %v, want %v", cgot.Visible, cgot.Groups, cm.Groups)
	}
	if _, err := engine.ReadNPZ(filepath.Join(t.TempDir(), "none.npz")); err == nil {
		t.Error("no error for a missing file")
	}
}

// TestReadNPZLarge: a sparse model of MNIST's size (SET's paper setting)
// round-trips exactly. The npz entries are deflate-compressed, and npyio
// before v0.7.0 read each float64 with one Read call, so a short read at a block boundary garbled values
// (sbinet/npyio#18): a SET model with 35,871 connections loaded with 78.
func TestReadNPZLarge(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Method, cfg.Hidden, cfg.Batch, cfg.Epsilon = engine.SET, 2500, 2, 11
	x := 784
	d := &engine.Data{N: 2, D: x, X: make([]uint8, 2*x)}
	for i := range d.X {
		d.X[i] = uint8(i % 3 % 2)
	}
	m, got := roundTrip(t, cfg, d)
	for name, p := range map[string][2][]float32{"W": {got.W, m.W}, "A": {got.A, m.A}, "A′": {got.AP, m.AP}, "C": {got.C(), m.C()}} {
		for k := range p[1] {
			if p[0][k] != p[1][k] {
				t.Fatalf("%s[%d] = %v after ReadNPZ, want %v", name, k, p[0][k], p[1][k])
			}
		}
	}
	if !reflect.DeepEqual(got, m) {
		t.Error("ReadNPZ(ExportNPZ(m)) differs from m")
	}
}

// roundTrip builds the initial model of cfg on d, exports it and loads it
// back: the model and what ReadNPZ returned.
func roundTrip(t *testing.T, cfg engine.Config, d *engine.Data) (m, got *engine.Model) {
	t.Helper()
	tr, err := engine.New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	m = tr.Model()
	path := filepath.Join(t.TempDir(), "model.npz")
	if err := m.ExportNPZ(path); err != nil {
		t.Fatal(err)
	}
	if got, err = engine.ReadNPZ(path); err != nil {
		t.Fatal(err)
	}
	return m, got
}

// TestReadNPZPartial: a file made elsewhere with C alone reads as a dense
// model with W = C, and one with W and A alone gets C = W⊙A; a file with
// neither is refused, naming the file.
func TestReadNPZPartial(t *testing.T) {
	const x, d, h = 3, 2, 2
	// H×X in the file; visible-major (X×H) in the model.
	w := mat.NewDense(h, x, []float64{1, -2, 3, 0.5, 4, -1})
	a := mat.NewDense(h, x, []float64{1, 0, 1, 0, 1, 1})
	wantC := []float32{1, 0, 0, 4, 3, -1} // (W⊙A)ᵀ, written out by hand
	b, v := []float32{0.25, -0.5}, []float32{1, 2, 3}
	write := func(items map[string]any) string {
		path := filepath.Join(t.TempDir(), "m.npz")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		z := npz.NewWriter(f)
		items["b"], items["d"], items["shape"] = b, v, []int64{x, d, h}
		for name, it := range items {
			if err := z.Write(name, it); err != nil {
				t.Fatal(err)
			}
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return path
	}
	var c mat.Dense
	c.MulElem(w, a)
	for name, items := range map[string]map[string]any{"W and A": {"W": w, "A": a}, "C": {"C": &c}} {
		m, err := engine.ReadNPZ(write(items))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(m.C(), wantC) || !reflect.DeepEqual(m.HiddenBias, b) || !reflect.DeepEqual(m.VisibleBias, v) {
			t.Errorf("%s: C %v b %v d %v, want %v %v %v", name, m.C(), m.HiddenBias, m.VisibleBias, wantC, b, v)
		}
		if name == "C" && (!reflect.DeepEqual(m.W, wantC) || m.A[1] != 1 || m.A[2] != 1) {
			t.Errorf("C alone: W %v A %v, want W = C and A all ones", m.W, m.A)
		}
	}
	p := write(map[string]any{"W": w})
	if _, err := engine.ReadNPZ(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("W without A or C: %v, want an error naming %s", err, p)
	}
}

// TestNPZEntryNames: ExportNPZ names its entries as numpy.savez does
// (np.savez(f, W=w) writes the zip entry "W.npy"), and ReadNPZ reads a
// file re-saved that way as well as one named without ".npy".
func TestNPZEntryNames(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Hidden, cfg.Batch = 3, 2
	d := &engine.Data{N: 2, D: 4, X: []uint8{1, 0, 1, 0, 0, 1, 1, 0}}
	m, _ := roundTrip(t, cfg, d)
	path := filepath.Join(t.TempDir(), "model.npz")
	if err := m.ExportNPZ(path); err != nil {
		t.Fatal(err)
	}
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range z.File {
		names = append(names, f.Name)
	}
	z.Close()
	if want := []string{"W.npy", "A.npy", "C.npy", "b.npy", "d.npy", "shape.npy", "Aprime.npy"}; !reflect.DeepEqual(names, want) {
		t.Errorf("entries %q, want %q", names, want)
	}
}

// TestReadNPZRefusesDamagedModels: a model file whose arrays disagree or
// have the wrong rank is refused, naming the file and the array, whatever
// reads it; each case changes one array of a good file. The good file has
// X = 3, H = 2: W, A, C, Aprime 2×3, b 2, d 3, σ = e^0.25 with
// log σ² = 0.5 for Gaussian units.
func TestReadNPZRefusesDamagedModels(t *testing.T) {
	const x, d, h = 3, 3, 2
	good := func() map[string]any {
		return map[string]any{
			"W":       mat.NewDense(h, x, []float64{1, -2, 3, 0.5, 4, -1}),
			"A":       mat.NewDense(h, x, []float64{1, 0, 1, 0, 1, 1}),
			"C":       mat.NewDense(h, x, []float64{1, 0, 3, 0, 4, -1}),
			"Aprime":  mat.NewDense(h, x, []float64{0.9, 0.1, 0.8, 0.2, 0.7, 1}),
			"b":       []float32{0.25, -0.5},
			"d":       []float32{1, 2, 3},
			"sigma":   []float32{float32(math.Exp(0.25)), float32(math.Exp(0.25)), float32(math.Exp(0.25))},
			"log_var": []float32{0.5, 0.5, 0.5},
			"shape":   []int64{x, d, h},
		}
	}
	write := func(items map[string]any) string {
		path := filepath.Join(t.TempDir(), "m.npz")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		z := npz.NewWriter(f)
		for name, it := range items {
			if err := z.Write(name+".npy", it); err != nil {
				t.Fatal(err)
			}
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return path
	}
	if m, err := engine.ReadNPZ(write(good())); err != nil || m.Visible != unit.Gaussian || m.AP == nil {
		t.Fatalf("the good file: %v", err)
	}
	for _, c := range []struct {
		name, array string
		value       any
		want        string
	}{
		{"NaN in C", "C", mat.NewDense(h, x, []float64{1, 0, 3, 0, math.NaN(), -1}), "C[1, 1] = NaN is not a finite number"},
		{"C other than W⊙A", "C", mat.NewDense(h, x, []float64{1, 0, 3, 0, 4, -2}), "C[1, 2] = -2 but W⊙A = -1"},
		{"C where A is 0", "C", mat.NewDense(h, x, []float64{1, -2, 3, 0, 4, -1}), "C[0, 1] = -2 but W⊙A = -0"},
		{"A not 0/1", "A", mat.NewDense(h, x, []float64{1, 0, 1, 0, 0.5, 1}), "A[1, 1] = 0.5: a mask holds 0 and 1 only"},
		{"Inf in W", "W", mat.NewDense(h, x, []float64{1, math.Inf(1), 3, 0.5, 4, -1}), "W[0, 1] = +Inf is not a finite number"},
		{"A′ above 1", "Aprime", mat.NewDense(h, x, []float64{0.9, 0.1, 0.8, 0.2, 1.5, 1}), "Aprime[1, 1] = 1.5: connection strengths lie in [0, 1]"},
		{"NaN in b", "b", []float32{0.25, float32(math.NaN())}, "b[1] = NaN"},
		{"log σ² not 2 log σ", "log_var", []float32{0.5, 0.6, 0.5}, "sigma[1] = 1.2840254 but log_var[1] = 0.6"},
		{"σ = 1e-30", "sigma", []float32{1e-30, 1, 1}, "sigma[0] = 1e-30"},
		{"σ = 0", "sigma", []float32{0, 1, 1}, "sigma[0] = 0: want σ > 0"},
		{"b of rank 2", "b", mat.NewDense(1, h, []float64{0.25, -0.5}), "b has shape [1 2], want [2]"},
		{"W transposed", "W", mat.NewDense(x, h, []float64{1, 0.5, -2, 4, 3, -1}), "W has shape [3 2], want [2 3]"},
		{"shape of rank 2", "shape", mat.NewDense(1, 3, []float64{x, d, h}), "shape has shape [1 3], want [3]"},
		{"d of rank 2", "d", mat.NewDense(x, 1, []float64{1, 2, 3}), "d has shape [3 1], want [3]"},
	} {
		items := good()
		items[c.array] = c.value
		if c.name == "σ = 1e-30" || c.name == "σ = 0" {
			delete(items, "log_var") // log σ² from σ: −138 and −Inf
		}
		path := write(items)
		_, err := engine.ReadNPZ(path)
		if err == nil || !strings.Contains(err.Error(), path+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming the file and saying %q", c.name, err, c.want)
		}
	}
}
