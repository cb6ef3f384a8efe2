package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestUpData: the states UpData draws for layer l are those a DBN's
// pre-training drew for RBM l (upperData of each RBM below, with the
// factor 1 of a DBN and the stack's seed), for any number of workers,
// and a layer outside the stack or data of another width is refused.
func TestUpData(t *testing.T) {
	d := randomData(5, 70, 30, 0)
	cfg := smallStack(DBN)
	cfg.Layers = append(cfg.Layers, cfg.Layers[1])
	cfg.Layers[2].Hidden = 5
	s := trainStack(t, cfg, d).Model()
	ctx := context.Background()
	want := d
	for l := 1; l <= 2; l++ {
		var err error
		if want, err = upperData(ctx, s.RBMs[l-1], want, 1, cfg.Seed, l, 1); err != nil {
			t.Fatal(err)
		}
		for _, w := range []int{1, 3} {
			got, err := s.UpData(ctx, d, l, cfg.Seed, w)
			if err != nil {
				t.Fatal(err)
			}
			if got.N != d.N || got.D != s.RBMs[l-1].H || !slices.Equal(got.X, want.X) {
				t.Errorf("layer %d, %d workers: not the states pre-training drew", l, w)
			}
		}
	}
	ones := 0
	for _, v := range want.X {
		ones += int(v)
	}
	if ones == 0 || ones == len(want.X) {
		t.Errorf("layer 2's sample is constant (%d ones of %d)", ones, len(want.X))
	}
	for _, c := range []struct {
		l    int
		d    *Data
		want string
	}{{0, d, "want 1 ≤ l < 3"}, {3, d, "want 1 ≤ l < 3"}, {1, randomData(5, 10, 29, 0), "data of 29 units"}} {
		if _, err := s.UpData(ctx, c.d, c.l, 1, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("layer %d: %v, want %q", c.l, err, c.want)
		}
	}
}

// TestStackCompressed: a stack trains its RBM of a sparse fixed mask on
// compressed rows, as that RBM alone does, and its dense one not.
func TestStackCompressed(t *testing.T) {
	d := randomData(5, 40, 30, 0)
	cfg := smallStack(DBN)
	cfg.Layers[0].Method, cfg.Layers[0].Density, cfg.Layers[0].Hidden = Random, 0.05, 40
	tr, err := NewStack(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := New(cfg.LayerConfig(0), d)
	if err != nil {
		t.Fatal(err)
	}
	defer alone.Close()
	if !alone.Compressed() || !tr.Compressed() {
		t.Fatalf("a 5%% random mask: alone compressed %v, in the stack %v", alone.Compressed(), tr.Compressed())
	}
	stop := errors.New("stop")
	err = tr.Train(context.Background(), StackOptions{OnEpoch: func(r StackRecord) error {
		if r.Layer == 2 {
			return stop
		}
		return nil
	}})
	if !errors.Is(err, stop) || tr.Compressed() {
		t.Errorf("the dense top RBM: %v, compressed %v", err, tr.Compressed())
	}
}
