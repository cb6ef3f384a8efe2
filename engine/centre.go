package engine

import (
	"math"

	"github.com/ncg-rbm/ncg/kernel"
)

// Centred training (Config.Centre; docs/algorithm.md, "Centred training"),
// after Melchior, Fischer & Wiskott, "How to center deep Boltzmann machines"
// (JMLR 17(99), 2016). A centred RBM writes its energy with offsets μ of the
// visible and λ of the hidden units,
//
//	E_c(v, h) = −(v − μ)ᵀ d_c − (h − λ)ᵀ b_c − (h − λ)ᵀ C (v − μ),
//
// which is the ordinary RBM with the same C and biases d = d_c − Cᵀλ,
// b = b_c − C μ. The model keeps the ordinary parameterisation (what
// sampling, evaluation and the saved model use) and takes the centred
// model's step in it. With sums over the minibatch's slots,
//
//	g_d = Σ (v⁺ − v⁻),  g_b = Σ (ĥ⁺ − ĥ⁻),  G = Σ (ĥ⁺ v⁺ᵀ − ĥ⁻ v⁻ᵀ)
//	G_c = G − g_b μᵀ − λ g_dᵀ   (= Σ (ĥ⁺ − λ)(v⁺ − μ)ᵀ − (ĥ⁻ − λ)(v⁻ − μ)ᵀ)
//
// W steps along G_c (NCG's strength along G_c ⊙ W_old), the biases take
// their usual steps along g_d and g_b (these are also the centred biases'
// gradients), and then the change ΔC of C = W ⊙ A in the step moves them
// as the offsets require, d −= ΔCᵀλ and b −= ΔC μ, so that d_c and b_c
// change by their own steps alone. This holds with momentum and decay
// (the velocities are the centred parameters') and when NCG switches
// connections. For Gaussian units v is v/σ², so μ is the data mean over
// σ². The visible offsets are the data's mean, fixed; the hidden offsets
// start at ½ and follow the minibatch's mean of ĥ⁺ at rate
// HiddenOffsetRate after every step, the ordinary parameters unchanged
// (Melchior, Fischer & Wiskott's reparameterisation). A learned σ follows
// its ordinary gradient.

// HiddenOffsetRate is ν, the rate of the hidden offsets' running mean:
// λ ← (1 − ν) λ + ν mean(ĥ⁺) after every minibatch (Melchior, Fischer &
// Wiskott's recommended sliding factor).
const HiddenOffsetRate = 0.01

// centring is the state of centred training.
type centring struct {
	mean   []float32 // X: the data's mean of each visible unit
	mu     []float32 // X: the visible offsets of the minibatch: mean/σ² for learned σ, else mean itself
	lambda []float32 // H: the hidden offsets
	// part holds each row chunk's share of ΔC μ (chunks × H), subtracted
	// from the hidden biases in chunk order; old, each row task's copy of
	// the row of C before its update (chunks × H); shift, each visible
	// unit's ΔCᵀλ; dot, one float of scratch per row task.
	part, old, shift, dot []float32
}

// allocCentre sets up centred training (after alloc's arrays): the data's
// visible means in float64, in row order, and hidden offsets of ½.
func (t *Trainer) allocCentre() {
	if !t.cfg.Centre {
		return
	}
	d, x, h := t.data, t.m.X, t.m.H
	sum := make([]float64, x)
	row := make([]float32, d.D)
	for r := 0; r < d.N; r++ {
		t.vis.load(row, d, r)
		for j, v := range row {
			sum[j] += float64(v)
		}
		if d.Classes > 0 {
			sum[d.D+int(d.Labels[r])]++
		}
	}
	chunks := len(t.rowOK)
	ct := &centring{mean: make([]float32, x), mu: make([]float32, x), lambda: make([]float32, h),
		part: make([]float32, chunks*h), old: make([]float32, chunks*h), shift: make([]float32, x), dot: make([]float32, chunks)}
	for j, s := range sum {
		ct.mean[j] = float32(s / float64(d.N))
	}
	if t.vis.inputScale() == nil { // the states enter as they are: the offsets are the means
		ct.mu = ct.mean
	}
	fill(ct.lambda, 0.5)
	t.ctr = ct
}

// centreStart prepares a minibatch's centred step, after its chains: the
// visible offsets in the units the gradient pairs with ĥ (mean/σ²), and
// the hidden biases' gradient g_b in gB, summed as biasTask sums it (slot
// order, ĥ⁺ then −ĥ⁻ of each).
func (t *Trainer) centreStart() {
	ct, h := t.ctr, t.m.H
	if s := t.vis.inputScale(); s != nil {
		for j, v := range ct.mean {
			ct.mu[j] = float32(v * s[j])
		}
	}
	for c := 0; c < t.nb; c++ {
		kernel.Axpy(t.gB, 1, t.hpos[c*h:(c+1)*h])
		kernel.Axpy(t.gB, 1, t.nhneg[c*h:(c+1)*h])
	}
}

// centreRow turns visible row j's gradient g (G's row, summed; its
// entries at the hidden units cols, or all H in order for nil cols) into
// G_c's, and keeps the row of C before the update, c.
func (t *Trainer) centreRow(g, c []float32, cols []int32, j int) {
	ct, h := t.ctr, t.m.H
	mu, gd := ct.mu[j], t.gV[j]
	if cols == nil {
		kernel.Axpy(g, -mu, t.gB)
		kernel.Axpy(g, -gd, ct.lambda)
	} else {
		for k, i := range cols {
			g[k] = g[k] - float32(mu*t.gB[i]) - float32(gd*ct.lambda[i])
		}
	}
	copy(ct.old[j/rowChunk*h:], c)
}

// centreShift takes row j's share of the biases' shifts from the change
// of its row of C in the update (c, after it; entries at cols as in
// centreRow): ΔC[j,:]·λ for d_j, μ_j·ΔC[j,:] into its chunk's part for b.
func (t *Trainer) centreShift(c []float32, cols []int32, j int) {
	ct, h := t.ctr, t.m.H
	k0 := j / rowChunk * h
	part, neg := ct.part[k0:k0+h], ct.old[k0:k0+len(c)]
	mu := ct.mu[j]
	kernel.Axpy(neg, -1, c) // −ΔC
	if cols == nil {
		ct.shift[j] = -dot(neg, ct.lambda, ct.dot[j/rowChunk:])
		kernel.Axpy(part, -mu, neg)
		return
	}
	var s float32
	for k, i := range cols {
		s -= float32(neg[k] * ct.lambda[i])
		part[i] -= float32(mu * neg[k])
	}
	ct.shift[j] = s
}

// dot returns Σ a[i]·b[i] in float32, each product rounded: the first
// multiple of 8 by kernel.DotRows (its 8 interleaved sums, the same on
// every tier), the rest added in order. out is one float of scratch.
func dot(a, b, out []float32) float32 {
	n := len(a) &^ 7
	var s float32
	if n > 0 {
		kernel.DotRows(out[:1], a[:n], b[:n], zeroOffset)
		s = out[0]
	}
	for i := n; i < len(a); i++ {
		s += float32(a[i] * b[i])
	}
	return s
}

// zeroOffset makes kernel.DotRows one dot product.
var zeroOffset = []int32{0}

// centreVisible shifts the visible biases j0…j1−1 by −ΔCᵀλ after their
// step and reports whether they are finite.
func (t *Trainer) centreVisible(j0, j1 int) bool {
	ok := true
	for j := j0; j < j1; j++ {
		v := t.m.VisibleBias[j] - t.ctr.shift[j]
		t.m.VisibleBias[j] = v
		ok = ok && !isBad(v)
	}
	return ok
}

// centreHidden finishes a centred step after the rows: the hidden biases
// take their step along g_b, then shift by −ΔC μ (the row chunks' parts
// in chunk order); then the hidden offsets move towards the minibatch's
// mean ĥ⁺.
func (t *Trainer) centreHidden() {
	ct, h := t.ctr, t.m.H
	for k := range t.biasOK {
		i0, i1 := k*biasChunk, min((k+1)*biasChunk, h)
		t.biasOK[k] = t.updateBias(t.m.HiddenBias[i0:i1], t.gB[i0:i1], sub(t.velB, i0, i1))
	}
	for k := range t.rowOK {
		kernel.Axpy(t.m.HiddenBias, -1, ct.part[k*h:(k+1)*h])
	}
	for k := range t.biasOK {
		for _, v := range t.m.HiddenBias[k*biasChunk : min((k+1)*biasChunk, h)] {
			t.biasOK[k] = t.biasOK[k] && !isBad(v)
		}
	}
	for i := range ct.lambda {
		var s float64
		for c := 0; c < t.nb; c++ {
			s += float64(t.hpos[c*h+i])
		}
		ct.lambda[i] = float32((1-HiddenOffsetRate)*float64(ct.lambda[i]) + HiddenOffsetRate*s/float64(t.nb))
	}
}

// isBad reports whether v is NaN or infinite.
func isBad(v float32) bool { return math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) }
