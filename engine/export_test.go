package engine_test

import (
	"context"
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
