package engine

import "github.com/ncg-rbm/ncg/kernel"

// Doubled inputs (Config.DoubleUp, Config.DoubleDown; docs/algorithm.md,
// "Doubled inputs"). The chains keep every pre-activation undoubled,
// hpre = b + the hidden units' input and vpre = d + C h, because the dense
// products update them incrementally between Gibbs steps from the last
// ones (product.update): a doubled value would be doubled again. The
// doubling happens where an input becomes probabilities or samples, in
// the destination of the probabilities, as 2·pre − bias = bias + 2·input:
// one test per block of chains when it is off.

// checkDoubling refuses the doubling where the chains do not double:
// parallel tempering's and the SET authors' procedure's.
func (c Config) checkDoubling(bad func(string, ...any)) {
	name := c.doubled()
	if name == "" {
		return
	}
	if c.sampler() == ParallelTempering {
		bad("%s: the pt sampler does not double inputs; use cd or pcd", name)
	}
	if c.SETProcedure == Mocanu {
		bad("%s: set-procedure %s does not double inputs", name, Mocanu)
	}
}

// doubled names the doubling settings that are on ("" if neither is).
func (c Config) doubled() string {
	switch {
	case c.DoubleUp && c.DoubleDown:
		return "double-up and double-down"
	case c.DoubleUp:
		return "double-up"
	case c.DoubleDown:
		return "double-down"
	}
	return ""
}

// doubleInput sets dst[r·n + i] = 2·pre[r·n + i] − bias[i] for every row r
// of n = len(bias) floats of pre: the bias plus twice the input, when pre
// is the bias plus the input. dst may alias pre exactly. 2·pre is exact
// in float32, so the one rounding is the subtraction's; the conversion
// keeps the compiler from fusing the two (which an overflowing 2·pre
// would tell apart), so that every architecture gives the same bits.
func doubleInput(dst, pre, bias []float32) {
	n := len(bias)
	for r := 0; r+n <= len(pre); r += n {
		d, p := dst[r:r+n], pre[r:r+n]
		for i, b := range bias {
			d[i] = float32(2*p[i]) - b
		}
	}
}

// sampleHidden sets prob to the hidden units' probabilities of nc chains
// given their pre-activations hpre = b + input (σ(hpre), or σ(b + 2·input)
// with DoubleUp) and draws their states hs from them, each chain from its
// stream. hpre is left unchanged.
func (t *Trainer) sampleHidden(prob, hs, hpre []float32, nc int, streams []kernel.Stream) {
	h := t.m.H
	pre := hpre
	if t.cfg.DoubleUp {
		doubleInput(prob[:nc*h], hpre[:nc*h], t.m.HiddenBias)
		pre = prob
	}
	for c := 0; c < nc; c++ {
		kernel.SigmoidBernoulli(prob[c*h:(c+1)*h], hs[c*h:(c+1)*h], pre[c*h:(c+1)*h], &streams[c])
	}
}

// hiddenProbs sets prob to the hidden units' probabilities given hpre, as
// sampleHidden does, without drawing.
func (t *Trainer) hiddenProbs(prob, hpre []float32) {
	pre := hpre
	if t.cfg.DoubleUp {
		doubleInput(prob, hpre, t.m.HiddenBias)
		pre = prob
	}
	kernel.Sigmoid(prob, pre)
}

// visibleInput returns the input the visible units of nc chains are drawn
// from given their pre-activations vpre = d + C h: vpre itself, or with
// DoubleDown d + 2·C h, written to dst (the block's rows of vprob, which
// the draw then overwrites with the means: visibleUnits.sample takes
// dst = pre).
func (t *Trainer) visibleInput(dst, vpre []float32, nc int) []float32 {
	if !t.cfg.DoubleDown {
		return vpre
	}
	x := t.m.X
	doubleInput(dst[:nc*x], vpre[:nc*x], t.m.VisibleBias)
	return dst[:nc*x]
}
