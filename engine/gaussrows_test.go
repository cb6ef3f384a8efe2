package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestGaussianCompressedProducts: a masked Gaussian model takes its chain
// products from compressed rows when at most SparseDensity() of C is
// present, and from the dense matrices above it; in both forms the up
// pass b + C(v/σ²), the down pass d + Cᵀh and the σ gradient's C ĥ
// equal the sums worked out here in float64 from the dense C, to float32
// rounding.
func TestGaussianCompressedProducts(t *testing.T) {
	d := gaussData(3, 40, 30)
	const nc = 5
	for _, c := range []struct {
		p      float64
		sparse bool
	}{{0.05, true}, {SparseDensity() / 2, true}, {min(1, 2*SparseDensity()), false}} {
		cfg := gaussConfig(NCG, true)
		cfg.P, cfg.Batch = c.p, nc
		tr, err := New(cfg, d)
		if err != nil {
			t.Fatal(err)
		}
		m := tr.m
		x, h := m.X, m.H
		r := rand.New(rand.NewPCG(9, uint64(1000*c.p)))
		for i := range m.HiddenBias {
			m.HiddenBias[i] = float32(r.NormFloat64())
		}
		for j := range m.VisibleBias {
			m.VisibleBias[j] = float32(r.NormFloat64())
			m.LogVar[j] = float32(r.Float64() - 0.5)
		}
		m.refreshSigma(gaussOf(tr).invVar, 0, x)
		gaussOf(tr).form(tr)
		present := 0
		for _, v := range m.c {
			if v != 0 {
				present++
			}
		}
		name := fmt.Sprintf("p=%.3g (%d of %d present)", c.p, present, x*h)
		if gaussOf(tr).sparse != c.sparse {
			t.Fatalf("%s: compressed %v, want %v (SparseDensity %v)", name, gaussOf(tr).sparse, c.sparse, SparseDensity())
		}
		if present == 0 || present == x*h {
			t.Fatalf("%s: want a mask with some connections present and some absent", name)
		}
		v, hs, stat := make([]float32, nc*x), make([]float32, nc*h), make([]float32, nc*h)
		for k := range v {
			v[k] = float32(r.NormFloat64())
		}
		for k := range hs {
			hs[k] = float32(r.IntN(2))
			stat[k] = float32(r.Float64())
		}
		got := make([]float32, nc*max(x, h))
		check := func(what string, out []float32, want func(c, o int) float64, chains, nout int) {
			t.Helper()
			for k := 0; k < chains*nout; k++ {
				w := want(k/nout, k%nout)
				if math.Abs(float64(out[k])-w) > 1e-5*(1+math.Abs(w)) {
					t.Fatalf("%s: %s of chain %d, unit %d = %v, want %v", name, what, k/nout, k%nout, out[k], w)
				}
			}
		}
		C := func(j, i int) float64 { return float64(m.c[j*h+i]) }

		gaussOf(tr).up(tr, 0, 0, nc, got, v, roleMid, true)
		check("up pass", got, func(c, i int) float64 {
			s := float64(m.HiddenBias[i])
			for j := 0; j < x; j++ {
				s += C(j, i) * float64(v[c*x+j]) / math.Exp(float64(m.LogVar[j]))
			}
			return s
		}, nc, h)
		down := func(in []float32, bias []float32) func(c, j int) float64 {
			return func(c, j int) float64 {
				s := 0.0
				if bias != nil {
					s = float64(bias[j])
				}
				for i := 0; i < h; i++ {
					s += C(j, i) * float64(in[c*h+i])
				}
				return s
			}
		}
		if gaussOf(tr).sparse {
			tr.cdDown.affineBinary(got, m.VisibleBias, hs, nc, h, x, nil, nil, &tr.scratch[0])
			check("down pass", got, down(hs, m.VisibleBias), nc, x)
		}
		// blockSigmaGrad's C ĥ, through its share of z's gradient: with
		// x⁰ = x̃ = v and ĥ⁺ = −ĥ⁻ = stat (nhneg = −ĥ⁻), the share is
		// Σ_c e^(−z_j)·(−2 v_cj (C stat_c)_j).
		tr.nb, tr.block = nc, nc
		copy(tr.x0, v)
		copy(tr.xs, v)
		copy(tr.hpos, stat)
		copy(tr.nhneg, stat)
		gaussOf(tr).finishBlock(tr, 0)
		cs := down(stat, nil)
		check("σ gradient", gaussOf(tr).dzBlock, func(_, j int) float64 {
			s := 0.0
			for c := 0; c < nc; c++ {
				s += -2 * float64(v[c*x+j]) * cs(c, j)
			}
			return s / math.Exp(float64(m.LogVar[j]))
		}, 1, x)
		tr.Close()
	}
}
