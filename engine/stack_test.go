package engine

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
)

// smallStack is a 2-layer stack of kind k on 30 data units: NCG below,
// dense above, two pre-training epochs each and two of joint training.
func smallStack(k StackKind) StackConfig {
	a, b := smallConfig(NCG), smallConfig(Dense)
	a.Hidden, b.Hidden = 16, 12
	a.Sampler, b.Sampler = PersistentCD, CD
	j := DefaultJoint()
	j.Epochs, j.Batch, j.Chains, j.MeanField, j.Gibbs, j.LR = 2, 10, 12, 4, 2, 0.05
	return StackConfig{Kind: k, Layers: []Config{a, b}, Seed: 3, Joint: j}
}

// stackBits returns every parameter of the stack, and a DBM's chains.
func stackBits(t *StackTrainer) [][]float32 {
	var out [][]float32
	for _, m := range t.Model().RBMs {
		out = append(out, modelArrays(m)...)
		out = append(out, m.C(), m.CH())
	}
	if t.joint != nil {
		out = append(out, t.joint.s...)
	}
	return out
}

func sameBits(t *testing.T, what string, a, b [][]float32) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d arrays vs %d", what, len(a), len(b))
	}
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Fatalf("%s: array %d differs", what, i)
		}
	}
}

func trainStack(t *testing.T, cfg StackConfig, d *Data) *StackTrainer {
	t.Helper()
	tr, err := NewStack(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Train(context.Background(), StackOptions{}); err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestStackSameResultAnyWorkers(t *testing.T) {
	d := randomData(5, 60, 30, 0)
	for _, k := range StackKinds() {
		cfg := smallStack(k)
		cfg.Workers = 1
		one := stackBits(trainStack(t, cfg, d))
		cfg.Workers = 3
		three := stackBits(trainStack(t, cfg, d))
		sameBits(t, string(k), one, three)
	}
}

// TestStackResume stops a DBM in the second RBM's pre-training and in
// joint training, resumes each from its checkpoint and compares with the
// run that was not stopped.
func TestStackResume(t *testing.T) {
	d := randomData(5, 60, 30, 0)
	cfg := smallStack(DBM)
	want := stackBits(trainStack(t, cfg, d))
	for _, stopAt := range []int{2, 0} { // layer 2's first epoch, joint's first
		path := filepath.Join(t.TempDir(), "ckpt")
		tr, err := NewStack(cfg, d)
		if err != nil {
			t.Fatal(err)
		}
		stop := errors.New("stop")
		err = tr.Train(context.Background(), StackOptions{Checkpoint: path, OnEpoch: func(r StackRecord) error {
			if r.Layer == stopAt && r.Epoch == 1 {
				if err := tr.SaveCheckpoint(path); err != nil {
					return err
				}
				return stop
			}
			return nil
		}})
		if !errors.Is(err, stop) {
			t.Fatalf("stop at layer %d: %v", stopAt, err)
		}
		re, err := ResumeStack(path, d, 2)
		if err != nil {
			t.Fatal(err)
		}
		if l, e := re.Position(); l != stopAt || e != 1 {
			t.Fatalf("resumed at layer %d epoch %d, want %d, 1", l, e, stopAt)
		}
		if err := re.Train(context.Background(), StackOptions{}); err != nil {
			t.Fatal(err)
		}
		sameBits(t, "resumed", want, stackBits(re))
	}
}

func TestStackEveryMethod(t *testing.T) {
	d := randomData(7, 40, 30, 0)
	for _, m := range allMethods {
		cfg := smallStack(DBM)
		cfg.Layers[1].Method = m
		cfg.Layers[1].LineWidth = 4
		cfg.Joint.Momentum, cfg.Joint.L2 = 0.5, 0.001
		tr := trainStack(t, cfg, d)
		if !tr.Done() {
			t.Fatalf("%s: not done", m)
		}
	}
}
