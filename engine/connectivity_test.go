package engine

import (
	"context"
	"math"
	"slices"
	"testing"
)

// The connectivity of each method: initial masks, NCG's thresholding and
// SET's rewiring.

func TestInitialisation(t *testing.T) {
	d := randomData(1, 20, 784, 10)
	cfg := smallConfig(NCG)
	cfg.Hidden, cfg.P = 500, 0.1
	tr, _ := New(cfg, d)
	m := tr.Model()
	n := m.DataUnits * m.H
	ones := 0
	for k := 0; k < n; k++ {
		a, ap, w := m.A[k], m.AP[k], m.W[k]
		if (a == 1) != (ap >= 0.5) || ap < 0 || ap > 1 {
			t.Fatalf("A′ %g inconsistent with A %g", ap, a)
		}
		if m.c[k] != w*a || w < -1 || w > 1 {
			t.Fatalf("C ≠ W⊙A at the start, or W outside U(-1,1)")
		}
		ones += int(a)
	}
	if dens := float64(ones) / float64(n); math.Abs(dens-0.1) > 0.005 {
		t.Errorf("initial density %.4f, want 0.1", dens)
	}
	for k := n; k < len(m.A); k++ {
		if m.A[k] != 1 {
			t.Fatal("a label connection is absent at the start")
		}
	}
	if got := lineStarts(784, 500); got[0] != 0 || got[1] != 2 || got[391] != 782 || got[392] != 1 || got[393] != 3 || got[499] != 215 {
		t.Errorf("line starts %v…%v", got[:3], got[390:395])
	}
}

func TestLabelConnectionsNeverThresholded(t *testing.T) {
	d := randomData(4, 120, 30, 3)
	cfg := smallConfig(NCG)
	cfg.LRConn, cfg.Gamma, cfg.P, cfg.Epochs = 5, 0.9, 0.05, 3 // aggressive pruning
	m := train(t, cfg, d)
	for k := m.DataUnits * m.H; k < len(m.A); k++ {
		if m.A[k] != 1 || m.c[k] != m.W[k] {
			t.Fatal("a label connection was thresholded")
		}
	}
}

func TestNCGChangesConnectivity(t *testing.T) {
	d := randomData(4, 200, 40, 0)
	cfg := smallConfig(NCG)
	cfg.P, cfg.Epochs = 0.1, 3
	tr, _ := New(cfg, d)
	before := append([]float32(nil), tr.Model().A...)
	var recs []Record
	if err := tr.Train(context.Background(), Options{OnEpoch: func(r Record) error { recs = append(recs, r); return nil }}); err != nil {
		t.Fatal(err)
	}
	added, removed := 0, 0
	for k, a := range tr.Model().A {
		switch {
		case a == 1 && before[k] == 0:
			added++
		case a == 0 && before[k] == 1:
			removed++
		}
	}
	if added == 0 {
		t.Error("NCG added no connection: the gradient of absent connections is not used")
	}
	if len(recs) != 3 || recs[2].Epoch != 3 || recs[0].DegreeMax < recs[0].DegreeMin || recs[2].Density <= 0 {
		t.Errorf("records %+v", recs)
	}
	t.Logf("added %d, removed %d; density %.3f → %.3f", added, removed, 0.1, recs[2].Density)
}

func TestSETKeepsDensity(t *testing.T) {
	d := randomData(4, 100, 40, 0)
	cfg := smallConfig(SET)
	cfg.Epochs = 4
	tr, _ := New(cfg, d)
	start := tr.Model().Connectivity().Active
	before := append([]float32(nil), tr.Model().A...)
	if err := tr.Train(context.Background(), Options{}); err != nil {
		t.Fatal(err)
	}
	m := tr.Model()
	if m.Connectivity().Active != start {
		t.Errorf("SET changed the number of connections: %d → %d", start, m.Connectivity().Active)
	}
	moved := 0
	for k := range before {
		if before[k] != m.A[k] {
			moved++
		}
	}
	if moved == 0 {
		t.Error("SET never rewired")
	}
}

// TestSETRewiresBetweenEpochs checks that SET rewires after each epoch but
// the last: the connections change after epochs 1 and 2 of 3, not after 3.
func TestSETRewiresBetweenEpochs(t *testing.T) {
	d := randomData(4, 100, 40, 0)
	cfg := smallConfig(SET)
	cfg.Epochs = 3
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	snaps := [][]float32{append([]float32(nil), tr.Model().A...)}
	opts := Options{OnEpoch: func(Record) error {
		snaps = append(snaps, append([]float32(nil), tr.Model().A...))
		return nil
	}}
	if err := tr.Train(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 4 {
		t.Fatalf("%d epoch records, want 3", len(snaps)-1)
	}
	for e := 1; e <= 3; e++ {
		changed := !slices.Equal(snaps[e-1], snaps[e])
		if want := e < 3; changed != want {
			t.Errorf("epoch %d: connections changed = %v, want %v", e, changed, want)
		}
	}
}

// TestMocanuRewiring: under the SET authors' procedure, an epoch before
// the last regrows as many connections as it removes, with weights from
// N(0, InitScale²); the last epoch removes ⌊ζ·n⁺⌋ positive and ⌊ζ·n⁻⌋
// negative weights (n± counted just before it) and grows none.
func TestMocanuRewiring(t *testing.T) {
	d := randomData(4, 100, 40, 0)
	cfg := smallConfig(SET)
	cfg.Epochs, cfg.K, cfg.SETProcedure, cfg.Init, cfg.InitScale = 2, 1, Mocanu, Normal, 0.05
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	batches := (d.N + cfg.Batch - 1) / cfg.Batch
	var before [][]float32 // A and W after each epoch's last minibatch
	tr.afterBatch = func() {
		if tr.batch == batches {
			before = append(before, append([]float32(nil), tr.m.A...), append([]float32(nil), tr.m.W...))
		}
	}
	var after [][]float32
	opts := Options{OnEpoch: func(Record) error {
		after = append(after, append([]float32(nil), tr.m.A...), append([]float32(nil), tr.m.W...))
		return nil
	}}
	if err := tr.Train(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	count := func(a []float32) (n int) {
		for _, v := range a {
			if v != 0 {
				n++
			}
		}
		return n
	}
	// Epoch 1: the same count, the new weights N(0, 0.05²): mean |w| is
	// 0.05·√(2/π) ≈ 0.040 (U(±0.01) regrowth would give 0.005).
	if count(after[0]) != count(before[0]) {
		t.Fatalf("epoch 1 changed the connections %d → %d", count(before[0]), count(after[0]))
	}
	var sum float64
	grown := 0
	for k, a := range after[0] {
		if a != 0 && before[0][k] == 0 {
			sum += math.Abs(float64(after[1][k]))
			grown++
		}
	}
	if grown < 20 || sum/float64(grown) < 0.025 || sum/float64(grown) > 0.055 {
		t.Fatalf("epoch 1 grew %d connections with mean |w| %.4f, want N(0, 0.05²) (0.040)", grown, sum/float64(max(grown, 1)))
	}
	// Epoch 2 (the last): only removals.
	var pos, neg int
	for k, a := range before[2] {
		if a != 0 {
			if before[3][k] > 0 {
				pos++
			} else {
				neg++
			}
		}
	}
	want := pos + neg - int(cfg.Zeta*float64(pos)) - int(cfg.Zeta*float64(neg))
	if got := count(after[2]); got != want {
		t.Fatalf("after the last epoch %d connections, want %d (of %d positive, %d negative)", got, want, pos, neg)
	}
	for k, a := range after[2] {
		if a != 0 && before[2][k] == 0 {
			t.Fatalf("the last epoch grew connection %d", k)
		}
	}
}
