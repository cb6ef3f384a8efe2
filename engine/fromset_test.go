package engine

import (
	"testing"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/unit"
)

// TestFromSetReal: a real-valued set's values reach the engine as they are
// (the same slice), and Gaussian units train on them.
func TestFromSetReal(t *testing.T) {
	s := &data.Set{Name: "r", N: 20, D: 3, Real: make([]float32, 60)}
	for i := range s.Real {
		s.Real[i] = float32(i%7) / 7
	}
	d, err := FromSet(s, false)
	if err != nil {
		t.Fatal(err)
	}
	if d.X != nil || len(d.Real) != 60 || &d.Real[0] != &s.Real[0] {
		t.Fatalf("FromSet: X %v, %d real values (shared %v), want the set's 60", d.X, len(d.Real), len(d.Real) > 0 && &d.Real[0] == &s.Real[0])
	}
	cfg := smallConfig(Dense)
	cfg.Visible, cfg.Hidden, cfg.Epochs = unit.Gaussian, 4, 1
	if _, err := New(cfg, d); err != nil {
		t.Errorf("a Gaussian model of the set: %v", err)
	}
}
