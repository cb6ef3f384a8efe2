package engine

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/unit"
)

// smallStack is a 2-layer stack of kind k on 30 data units: NCG below,
// dense above, two pre-training epochs each and two of joint training.
func smallStack(k StackKind) StackConfig {
	a, b := smallConfig(NCG), smallConfig(Dense)
	a.Hidden, b.Hidden = 16, 12
	a.Sampler, b.Sampler = PersistentCD, CD
	j := DefaultJoint()
	j.Epochs, j.Batch, j.Chains, j.MeanField, j.Gibbs, j.LR, j.Centre = 2, 10, 12, 4, 2, 0.05, true
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

// resumeAndFinish resumes the checkpoint at path with workers, trains it
// to the end and compares every parameter and chain with want.
func resumeAndFinish(t *testing.T, what, path string, d *Data, workers int, want [][]float32) *StackTrainer {
	t.Helper()
	re, err := ResumeStack(path, d, workers)
	if err != nil {
		t.Fatal(err)
	}
	if err := re.Train(context.Background(), StackOptions{}); err != nil {
		t.Fatal(err)
	}
	sameBits(t, what, want, stackBits(re))
	return re
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
	// Cancelled at the end of the bottom RBM's last epoch: the next RBM's
	// data are not drawn, and the checkpoint holds the finished RBM.
	{
		path := filepath.Join(t.TempDir(), "ckpt")
		tr, err := NewStack(cfg, d)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		err = tr.Train(ctx, StackOptions{Checkpoint: path, OnEpoch: func(r StackRecord) error {
			if r.Layer == 1 && r.Epoch == cfg.Layers[0].Epochs {
				cancel()
			}
			return nil
		}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled between RBMs: %v", err)
		}
		re, err := ResumeStack(path, d, 2)
		if err != nil {
			t.Fatal(err)
		}
		if l, e := re.Position(); l != 1 || e != cfg.Layers[0].Epochs {
			t.Fatalf("resumed at layer %d epoch %d, want 1, %d", l, e, cfg.Layers[0].Epochs)
		}
		if err := re.Train(context.Background(), StackOptions{}); err != nil {
			t.Fatal(err)
		}
		sameBits(t, "resumed between RBMs", want, stackBits(re))
	}
	// Cancelled inside a joint epoch: the checkpoint holds the position.
	path := filepath.Join(t.TempDir(), "ckpt")
	tr, err := NewStack(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err = tr.Train(ctx, StackOptions{Checkpoint: path, OnBatch: func(layer, epoch, done, _ int) {
		if layer == 0 && epoch == 2 && done == 3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled joint training: %v", err)
	}
	resumeAndFinish(t, "resumed mid-epoch", path, d, 1, want)
}

// TestDBMResumeAfterRewire stops a DBM whose upper matrix is SET after
// its first joint epoch, whose end rewired that matrix, and resumes: the
// run that was not stopped must repack the tiles of C its products read,
// as the resumed run packs them from the checkpoint.
func TestDBMResumeAfterRewire(t *testing.T) {
	d := randomData(5, 60, 30, 0)
	cfg := smallStack(DBM)
	cfg.Layers[1].Method, cfg.Layers[1].Zeta = SET, 0.3
	cfg.Joint.Centre = false
	want := stackBits(trainStack(t, cfg, d))
	path := filepath.Join(t.TempDir(), "ckpt")
	tr, err := NewStack(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	err = tr.Train(context.Background(), StackOptions{OnEpoch: func(r StackRecord) error {
		if r.Layer == 0 && r.Epoch == 1 {
			if err := tr.SaveCheckpoint(path); err != nil {
				return err
			}
			return stop
		}
		return nil
	}})
	if !errors.Is(err, stop) {
		t.Fatalf("stop after the first joint epoch: %v", err)
	}
	resumeAndFinish(t, "resumed after the rewiring", path, d, 2, want)
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

// TestUpperDataSamplesTheRecognition checks the data an upper RBM trains
// on: for 4,000 copies of one row, each hidden unit's frequency of ones
// lies within 4.5 standard errors of σ(b + f·Cᵀx) (a false alarm in
// fewer than 1 in 10⁴ runs over the units), for f = 1 and 2.
func TestUpperDataSamplesTheRecognition(t *testing.T) {
	const n, x, h = 4000, 7, 5
	m := newModel(x, x, h, false)
	for k := range m.W {
		m.W[k], m.A[k] = float32(k%5)*0.3-0.6, 1
	}
	for i := range m.HiddenBias {
		m.HiddenBias[i] = float32(i)*0.2 - 0.4
	}
	m.refreshC()
	row := []uint8{1, 0, 1, 1, 0, 0, 1}
	d := &Data{N: n, D: x, X: make([]uint8, n*x)}
	for r := 0; r < n; r++ {
		copy(d.X[r*x:], row)
	}
	for _, f := range []float32{1, 2} {
		up, err := upperData(context.Background(), m, d, f, 9, 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < h; i++ {
			in := float64(m.HiddenBias[i])
			for j, v := range row {
				in += float64(f) * float64(v) * float64(m.W[j*h+i])
			}
			p := 1 / (1 + math.Exp(-in))
			ones := 0
			for r := 0; r < n; r++ {
				ones += int(up.X[r*h+i])
			}
			if se := math.Sqrt(p * (1 - p) / n); math.Abs(float64(ones)/n-p) > 4.5*se {
				t.Errorf("factor %v, unit %d: frequency %.4f, want %.4f ± %.4f", f, i, float64(ones)/n, p, se)
			}
		}
	}
}

// TestStackConfigRefuses checks that every setting a stack cannot take is
// refused with a message naming it.
func TestStackConfigRefuses(t *testing.T) {
	for _, c := range []struct {
		change func(*StackConfig)
		want   string
	}{
		{func(c *StackConfig) { c.Kind = "rbm" }, `model "rbm"`},
		{func(c *StackConfig) { c.Layers = nil }, "at least 1 hidden layer"},
		{func(c *StackConfig) {
			for len(c.Layers) <= MaxStackLayers {
				c.Layers = append(c.Layers, c.Layers[0])
			}
		}, "at most 8"},
		{func(c *StackConfig) { c.Layers[1].Visible = unit.Gaussian }, "layer 2: hidden layers are binary"},
		{func(c *StackConfig) { c.Layers[1].Hidden = 0 }, "layer 2: hidden = 0"},
		{func(c *StackConfig) {
			c.Layers[0].Sampler, c.Layers[0].Temperatures, c.Layers[0].MinBeta = ParallelTempering, 4, 0.5
		}, "layer 1: a DBM's pre-training doubles inputs"},
		{func(c *StackConfig) { c.Layers[0].DoubleUp = true }, "set by the stack"},
		{func(c *StackConfig) { c.Joint.MeanField = 0 }, "mean-field = 0"},
		{func(c *StackConfig) { c.Joint.Gibbs = 0 }, "gibbs = 0"},
		{func(c *StackConfig) { c.Joint.Batch = 0 }, "joint-batch = 0"},
		{func(c *StackConfig) { c.Joint.Chains = -1 }, "chains = -1"},
		{func(c *StackConfig) { c.Joint.Momentum = 1 }, "joint-momentum = 1"},
		{func(c *StackConfig) { c.Joint.LR = math.NaN() }, "joint-lr = NaN"},
		{func(c *StackConfig) { c.Layers[0].Visible = unit.Gaussian }, "joint-centre"},
	} {
		cfg := smallStack(DBM)
		c.change(&cfg)
		err := cfg.Validate(30)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error containing %q, got %v", c.want, err)
		}
	}
	if err := smallStack(DBM).Validate(30); err != nil {
		t.Fatal(err)
	}
	// A DBN has no joint training to check.
	dbn := smallStack(DBN)
	dbn.Joint = JointConfig{}
	if err := dbn.Validate(30); err != nil {
		t.Fatal(err)
	}
	if _, err := NewStack(smallStack(DBM), randomData(1, 20, 30, 3)); err == nil || !strings.Contains(err.Error(), "takes no labels") {
		t.Errorf("labels: %v", err)
	}
}

// TestFoldBiasesTakesTheMean checks the DBM that pre-training ends with:
// an intermediate layer's bias is the mean of the two biases the doubled
// RBMs learned for it, held in the lower RBM (the upper one's zero).
func TestFoldBiasesTakesTheMean(t *testing.T) {
	d := randomData(5, 60, 30, 0)
	cfg := smallStack(DBM)
	cfg.Joint.Epochs = 0
	tr, err := NewStack(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	var hid, vis []float32
	err = tr.Train(context.Background(), StackOptions{OnEpoch: func(r StackRecord) error {
		if r.Layer == 2 && r.Epoch == cfg.Layers[1].Epochs {
			rbms := tr.Model().RBMs
			hid, vis = slices.Clone(rbms[0].HiddenBias), slices.Clone(rbms[1].VisibleBias)
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	rbms := tr.Model().RBMs
	for i := range hid {
		if want := (hid[i] + vis[i]) / 2; rbms[0].HiddenBias[i] != want || rbms[1].VisibleBias[i] != 0 {
			t.Fatalf("unit %d: biases %v and %v, want %v and 0", i, rbms[0].HiddenBias[i], rbms[1].VisibleBias[i], want)
		}
	}
	if slices.Equal(hid, vis) {
		t.Fatal("the test needs two different biases")
	}
}
