package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/internal/datatest"
	"github.com/ncg-rbm/ncg/internal/kerneltier"
	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/unit"
)

// loadMNIST reads the binarised MNIST training set from the shared data
// directory (skips, or fails in CI, when it is absent).
func loadMNIST(b testing.TB) *Data {
	b.Helper()
	dir := datatest.Dir(b)
	train, _, err := data.Load("mnist", data.Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	d, err := FromSet(train, false)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

func paperNCG() Config {
	c := DefaultConfig() // H 500, CD-10, batch 50, α 0.1, α_A 0.5, γ 0.5, p 0.5
	c.Epochs = 1
	return c
}

// BenchmarkEpoch is one 60,000-sample epoch of the paper's MNIST NCG
// configuration: the figure the README quotes (seconds per epoch = ns/op/1e9).
func BenchmarkEpoch(b *testing.B) {
	d := loadMNIST(b)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("mnist-ncg/workers%d", w), func(b *testing.B) {
			cfg := paperNCG()
			cfg.Workers = w
			for i := 0; i < b.N; i++ {
				t, err := New(cfg, d)
				if err != nil {
					b.Fatal(err)
				}
				if err := t.Train(context.Background(), Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/epoch")
		})
	}
}

// BenchmarkMinibatch is one minibatch of the same configuration (dense and
// NCG, and NCG with momentum and L2 decay, whose update is the fused
// kernel UpdateMomentumNCG), and of the paper's SET configuration (H = 2500, ε = 11: 1.8% of the
// connections, trained on compressed rows; set-h2500-dense trains it on the
// dense matrices, for the ratio), and NCG with Gaussian visible units on
// centred pixels (σ = 1, and learned), and NCG and the SET configuration
// centred with zero offsets (centred0: the uncentred run's states and
// steps, bit for bit, with the centring's work added, so the ratio to ncg
// and set-h2500 is its cost), in steady state; it shows that a minibatch
// allocates nothing.
func BenchmarkMinibatch(b *testing.B) {
	d := loadMNIST(b)
	set := paperNCG()
	set.Method, set.Hidden, set.LR = SET, 2500, 0.01
	momentum := paperNCG()
	momentum.Momentum, momentum.L2 = 0.9, 2e-4
	gauss, gaussSigma := paperNCG(), paperNCG()
	gauss.Visible, gauss.LR = unit.Gaussian, 0.001
	gaussSigma.Visible, gaussSigma.LearnSigma, gaussSigma.LR = unit.Gaussian, true, 0.001
	real := centred(d)
	centredNCG, centredSET := paperNCG(), set
	centredNCG.Centre, centredSET.Centre = true, true
	for _, c := range []struct {
		name      string
		cfg       Config
		denseRows bool
	}{{"dense", paperNCG(), false}, {"ncg", paperNCG(), false}, {"ncg-momentum-l2", momentum, false},
		{"set-h2500", set, false}, {"set-h2500-dense", set, true},
		{"ncg-gaussian", gauss, false}, {"ncg-gaussian-sigma", gaussSigma, false},
		{"ncg-centred0", centredNCG, false}, {"set-h2500-centred0", centredSET, false}} {
		if c.name == "dense" {
			c.cfg.Method = Dense
		}
		d := d
		if c.cfg.Visible == unit.Gaussian {
			d = real
		}
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers%d", c.name, w), func(b *testing.B) {
				cfg := c.cfg
				cfg.Workers = w
				if c.denseRows {
					defer formHook("dense")()
				}
				t, err := New(cfg, d)
				if err != nil {
					b.Fatal(err)
				}
				defer t.Close()
				if t.ctr != nil {
					benchSteps(b, t, d, 20, zeroOffsets(t))
					return
				}
				benchSteps(b, t, d, 20, nil) // leave the random start behind
			})
		}
	}
}

// zeroOffsets returns a function that sets a centred trainer's offsets to
// zero, with which a centred step is the uncentred one.
func zeroOffsets(t *Trainer) func() {
	return func() {
		clear(t.ctr.mean)
		clear(t.ctr.lambda)
	}
}

// centred returns d's pixels less their means as real-valued data: a
// stand-in for real-valued MNIST with as many non-zero values as pixels
// (the Gaussian cases of BenchmarkMinibatch).
func centred(d *Data) *Data {
	mean := make([]float64, d.D)
	for i, v := range d.X {
		mean[i%d.D] += float64(v)
	}
	r := &Data{N: d.N, D: d.D, Real: make([]float32, len(d.X))}
	for i, v := range d.X {
		r.Real[i] = float32(float64(v) - mean[i%d.D]/float64(d.N))
	}
	return r
}

// BenchmarkCompressedCrossover is one minibatch of random masks of MNIST
// at H = 500, on one worker, on compressed rows and on the dense matrices,
// on every kernel tier: the densities at which the two forms cost the
// same, which set SparseDensity.
func BenchmarkCompressedCrossover(b *testing.B) {
	d := loadMNIST(b)
	for _, tier := range kernel.Tiers() {
		for _, dens := range []float64{0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5} {
			for _, form := range []string{"compressed", "dense"} {
				b.Run(fmt.Sprintf("%s/d%g/%s", tier, dens, form), func(b *testing.B) {
					defer formHook(form)()
					restore, err := kerneltier.Use(tier)
					if err != nil {
						b.Fatal(err)
					}
					defer restore()
					cfg := paperNCG()
					cfg.Method, cfg.Density, cfg.Workers = Random, dens, 1
					t, err := New(cfg, d)
					if err != nil {
						b.Fatal(err)
					}
					defer t.Close()
					benchSteps(b, t, d, 5, nil)
				})
			}
		}
	}
}

// paperSET is the paper's MNIST SET configuration with h hidden units
// (ε = 11, ζ = 0.3, α = 0.01, CD-10, batch 50); with mocanu, the SET
// authors' procedure with the settings ncgbench train -set-procedure
// mocanu gives it: CD-1, N(0, 0.05²) weights, L2 = MocanuDecay/α. These
// are the settings of ncgbench bench's epoch/mnist-set cases.
func paperSET(h int, mocanu bool) Config {
	c := paperNCG()
	c.Method, c.Hidden, c.Epsilon, c.LR = SET, h, 11, 0.01
	if mocanu {
		c.SETProcedure, c.K, c.Init, c.InitScale = Mocanu, MocanuK, Normal, MocanuInitScale
		c.L2 = MocanuDecay / c.LR
	}
	return c
}

// BenchmarkMinibatchScale is one minibatch of the models of ncgbench
// bench's scale cases, with their settings and names: SET at five sizes
// (H = 500 to 10000, all on compressed rows), the SET authors' procedure
// at H = 2500, and random masks of density 1, 5, 10 and 20% at H = 500
// (the last on the masked dense matrices), on all workers, in steady
// state. Besides s/epoch it reports the model's data connections + units
// (conn+units), the size the SET epoch's growth is measured against.
// BenchmarkMinibatch/ncg-momentum-l2 is the momentum case's.
func BenchmarkMinibatchScale(b *testing.B) {
	d := loadMNIST(b)
	type scaleCase struct {
		name string
		cfg  Config
	}
	var cs []scaleCase
	for _, h := range []int{500, 1000, 2500, 5000, 10000} {
		cs = append(cs, scaleCase{fmt.Sprintf("mnist-set/h%d", h), paperSET(h, false)})
	}
	cs = append(cs, scaleCase{"mnist-set-mocanu/h2500", paperSET(2500, true)})
	for _, p := range []int{1, 5, 10, 20} {
		cfg := paperNCG()
		cfg.Method, cfg.Density = Random, float64(p)/100
		cs = append(cs, scaleCase{fmt.Sprintf("mnist-random/d%d", p), cfg})
	}
	for _, c := range cs {
		b.Run(c.name, func(b *testing.B) {
			t, err := New(c.cfg, d)
			if err != nil {
				b.Fatal(err)
			}
			defer t.Close()
			size := t.m.Connectivity().Active + t.m.X + t.m.H
			benchSteps(b, t, d, 20, nil)
			b.ReportMetric(float64(size), "conn+units")
		})
	}
}

// BenchmarkSampler is one minibatch of the paper's MNIST NCG configuration
// with each sampler at the same number of Gibbs steps per slot: CD-10,
// PCD-10 and parallel tempering with 10 temperatures and one round (one
// step per temperature), and PT with 5 temperatures and two rounds. PT's
// extra cost is its swaps and energies and its products from scratch
// (CD-k updates its products incrementally between steps).
func BenchmarkSampler(b *testing.B) {
	d := loadMNIST(b)
	for _, c := range []struct {
		name            string
		sampler         Sampler
		k, temperatures int
	}{{"cd10", CD, 10, 0}, {"pcd10", PersistentCD, 10, 0}, {"pt10x1", ParallelTempering, 1, 10}, {"pt5x2", ParallelTempering, 2, 5}} {
		b.Run(c.name, func(b *testing.B) {
			cfg := paperNCG()
			cfg.Sampler, cfg.K, cfg.Temperatures, cfg.Workers = c.sampler, c.k, c.temperatures, 1
			if c.sampler == ParallelTempering {
				cfg.MinBeta = DefaultMinBeta
			}
			t, err := New(cfg, d)
			if err != nil {
				b.Fatal(err)
			}
			defer t.Close()
			benchSteps(b, t, d, 20, nil)
		})
	}
}

// benchSteps runs warm minibatches of consecutive rows of d, then times
// b.N more and reports them as seconds per epoch.
func benchSteps(b *testing.B, t *Trainer, d *Data, warm int, before func()) {
	bs := t.Config().Batch
	rows := make([]int32, bs)
	step := func(i int) {
		for k := range rows {
			rows[k] = int32((i*bs + k) % d.N)
		}
		if before != nil {
			before()
		}
		if _, err := t.Step(rows); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < warm; i++ {
		step(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step(i)
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)*float64(d.N/bs), "s/epoch")
}

// BenchmarkUpdate is the update of an MNIST-sized NCG weight matrix
// (784×500) after one minibatch: the fused kernel of the plain rule, and
// the one that applies momentum and weight decay. It isolates the update's
// cost from the chains', which depend on where training has led the model.
func BenchmarkUpdate(b *testing.B) {
	const x, h = 784, 500
	r := rand.New(rand.NewPCG(1, 2))
	w, ap, a, c, g, v := make([]float32, x*h), make([]float32, x*h), make([]float32, x*h), make([]float32, x*h), make([]float32, x*h), make([]float32, x*h)
	for k := range w {
		w[k], ap[k], a[k] = 2*r.Float32()-1, r.Float32(), float32(r.IntN(2))
	}
	p := kernel.Step{LR: 0.01, InvB: 1.0 / 50, Mu: 0.9, L2: 2e-4, LRA: 0.5 / 50, Gamma: 0.5}
	for _, c2 := range []struct {
		name string
		row  func(lo, hi int) bool
	}{
		{"kernel-ncg", func(lo, hi int) bool {
			return kernel.UpdateNCG(w[lo:hi], ap[lo:hi], a[lo:hi], c[lo:hi], g[lo:hi], 0.002, 0.01, 0.5)
		}},
		{"kernel-ncg-momentum-l2", func(lo, hi int) bool {
			return kernel.UpdateMomentumNCG(w[lo:hi], ap[lo:hi], a[lo:hi], c[lo:hi], g[lo:hi], v[lo:hi], p)
		}},
	} {
		b.Run(c2.name, func(b *testing.B) {
			b.SetBytes(int64(x * h * 4 * 6))
			for i := 0; i < b.N; i++ {
				for j := 0; j < x; j++ {
					c2.row(j*h, (j+1)*h)
				}
			}
		})
	}
}
