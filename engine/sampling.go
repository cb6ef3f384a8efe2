package engine

import (
	"context"
	"fmt"

	"github.com/ncg-rbm/ncg/kernel"
)

// Gibbs runs n chains of block Gibbs sampling of the model m from the
// visible states v (n×X, row-major), which it updates in place: steps
// times h ~ p(h | v), then v ~ p(v | h), through the chain steps of m's
// visible unit type (as training takes them), chain c drawing from
// kernel.NewStream(seed, c). It returns the conditional means of the
// visible units given the last h (n×X): the probabilities of binary
// units, each group's softmax of categorical ones, d + Cᵀh of Gaussian
// ones (with the model's σ); with no steps, a copy of v. Chains are
// independent, so the result does not depend on how they are grouped. It
// stops, with ctx's error, when ctx is done.
func Gibbs(ctx context.Context, m *Model, v []float32, n, steps int, seed uint64) ([]float32, error) {
	if err := kernel.Init(); err != nil {
		return nil, err
	}
	if n < 1 || steps < 0 || len(v) != n*m.X {
		return nil, fmt.Errorf("engine: Gibbs: %d chains of %d steps from %d values; want n ≥ 1, steps ≥ 0 and n·X = %d", n, steps, len(v), n*m.X)
	}
	if err := m.Visible.Check(); err != nil {
		return nil, err
	}
	if err := unitsOf(m.Visible).checkModel(m); err != nil {
		return nil, fmt.Errorf("engine: Gibbs: %w", err)
	}
	means := append([]float32(nil), v...)
	if steps == 0 {
		return means, nil
	}
	t := samplerFor(m, n, seed)
	x, h := m.X, m.H
	t.up, t.down = weights{m: m.cp, stride: m.cpStride(), up: true}, weights{m: m.ch, stride: x}
	t.vis.prepare(t)
	for s := 0; s < steps; s++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for blk := 0; blk*t.block < n; blk++ {
			c0, c1 := blk*t.block, min((blk+1)*t.block, n)
			nc := c1 - c0
			states, vpre := v[c0*x:c1*x], t.vpre[c0*x:c1*x]
			hs, hpre := t.h[c0*h:c1*h], t.hpre[c0*h:c1*h]
			_, _, hIdx, hCnt := t.indexLists(c0, c1)
			t.vis.up(t, blk, c0, c1, hpre, states, roleMid, true)
			for c := 0; c < nc; c++ {
				kernel.SigmoidBernoulli(hpre[c*h:(c+1)*h], hs[c*h:(c+1)*h], hpre[c*h:(c+1)*h], &t.streams[c0+c])
			}
			t.down.affineBinary(vpre, m.VisibleBias, hs, nc, h, x, hIdx, hCnt, &t.scratch[blk])
			mean := t.vis.sample(t, blk, states, t.vprob[c0*x:c1*x], vpre, nc, 1, t.streams[c0:c1])
			copy(means[c0*x:c1*x], mean)
		}
	}
	return means, nil
}

// samplerFor returns a trainer of n slots around m that only samples: its
// chain scratch, m's unit type bound to m (with LearnSigma, a Gaussian
// model's σ is its own, from log σ², where training keeps σ = 1), and
// stream (seed, c) for chain c.
func samplerFor(m *Model, n int, seed uint64) *Trainer {
	cfg := Config{Method: Dense, Hidden: m.H, K: 1, Batch: n, Visible: m.Visible, LearnSigma: true, Init: Zero}
	d := &Data{N: n, D: m.DataUnits, Classes: m.X - m.DataUnits}
	t := &Trainer{cfg: cfg, data: d, m: m, vis: unitsOf(m.Visible)}
	t.vis.bind(m)
	if len(m.cp) != m.X*m.cpStride() {
		m.padC(0, m.X)
	}
	t.alloc()
	for c := range t.streams {
		t.streams[c] = kernel.NewStream(seed, uint64(c))
	}
	return t
}
