package report

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ncg-rbm/ncg/engine"
)

func TestLoadNPZ(t *testing.T) {
	for _, method := range []engine.Method{engine.NCG, engine.Dense} {
		cfg := engine.DefaultConfig()
		cfg.Method, cfg.Hidden, cfg.Batch = method, 5, 2
		d := &engine.Data{N: 4, D: 6, X: []uint8{1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0}, Labels: []int32{0, 1, 2, 1}, Classes: 3}
		m, got := roundTrip(t, cfg, d)
		if !reflect.DeepEqual(got, m) {
			t.Errorf("%s: LoadNPZ(ExportNPZ(m)) differs from m:\n%+v\n%+v", method, got, m)
		}
	}
	if _, err := LoadNPZ(filepath.Join(t.TempDir(), "none.npz")); err == nil {
		t.Error("no error for a missing file")
	}
}

// TestLoadNPZLarge: a sparse model of MNIST's size (SET's paper setting)
// round-trips exactly. The npz entries are deflate-compressed, and npyio
// before v0.7.0 read each float64 with one Read call, so a short read at a block boundary garbled values
// (sbinet/npyio#18): a SET model with 35,871 connections loaded with 78.
func TestLoadNPZLarge(t *testing.T) {
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
				t.Fatalf("%s[%d] = %v after LoadNPZ, want %v", name, k, p[0][k], p[1][k])
			}
		}
	}
	if !reflect.DeepEqual(got, m) {
		t.Error("LoadNPZ(ExportNPZ(m)) differs from m")
	}
}

// roundTrip builds the initial model of cfg on d, exports it and loads it
// back: the model and what LoadNPZ returned.
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
	if got, err = LoadNPZ(path); err != nil {
		t.Fatal(err)
	}
	return m, got
}
