package engine

import (
	"context"
	"fmt"
	"runtime"

	"github.com/ncg-rbm/ncg/kernel"
)

// GibbsStack draws n samples of a deep model's visible units from chains
// started at the visible states v (n×X, row-major; a DBM's chains leave
// their last visible states there),
// chain c drawing from kernel.NewStream(seed, c), and returns the
// conditional means of the visible units given the last states above
// them (n×X; with no steps, a copy of v). It stops with ctx's error when
// ctx is done.
//
// A DBM's chains start with their hidden layers drawn upward as in joint
// training's bottom-up pass, then run steps Gibbs sweeps of the whole
// model (odd layers given even, then even given odd). A DBN's chains
// draw the recognition states up to the top RBM, run steps Gibbs steps
// of the top RBM, then draw every layer below from its generative
// conditional, down to the visible units' means.
func GibbsStack(ctx context.Context, s *Stack, v []float32, n, steps int, seed uint64) ([]float32, error) {
	if err := kernel.Init(); err != nil {
		return nil, err
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	x := s.RBMs[0].X
	if n < 1 || steps < 0 || len(v) != n*x {
		return nil, fmt.Errorf("engine: GibbsStack: %d chains of %d steps from %d values; want n ≥ 1, steps ≥ 0 and n·X = %d", n, steps, len(v), n*x)
	}
	if s.RBMs[0].X != s.RBMs[0].DataUnits {
		return nil, fmt.Errorf("engine: GibbsStack: a deep model has no label units")
	}
	if steps == 0 {
		return append([]float32(nil), v...), nil
	}
	for _, m := range s.RBMs {
		if len(m.cp) != m.X*m.cpStride() {
			m.padC(0, m.X)
		}
	}
	if s.Kind == DBN {
		return sampleDBN(ctx, s, v, n, steps, seed)
	}
	j := newChains(s, n, seed)
	copy(j.s[0], v)
	L := len(s.RBMs)
	for c0 := 0; c0 < n; c0 += blockSize {
		c1 := min(c0+blockSize, n)
		j.drawUp(c0, c1, L)
	}
	j.pool = newPool(runtime.GOMAXPROCS(0))
	defer j.pool.close()
	j.pack()
	for step := 0; step < steps; step++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		j.gibbs(1)
	}
	copy(v, j.s[0])
	return j.visibleMeans(), nil
}

// newChains returns the chain state of n chains of a deep model: a
// dbmJoint with only what its chains need, the model's biases copied
// (Stack.Bias: a DBM's intermediate layers take the sum of the two).
func newChains(s *Stack, n int, seed uint64) *dbmJoint {
	L := len(s.RBMs)
	j := &dbmJoint{cfg: JointConfig{Batch: 1, Chains: n}, seed: seed, rbms: s.RBMs, vis: s.RBMs[0].Visible}
	j.n = s.Sizes()
	j.bias = make([][]float32, L+1)
	for l := range j.bias {
		j.bias[l] = s.Bias(l)
	}
	m0 := s.RBMs[0]
	if m0.Groups != nil {
		for _, v := range m0.Groups {
			j.groups = append(j.groups, int32(v))
		}
	}
	if m0.LogVar != nil {
		j.sigma, j.scale = m0.Sigma, m0.inputScale()
	}
	wide := 0
	j.s = make([][]float32, L+1)
	for l, size := range j.n {
		wide = max(wide, size)
		j.s[l] = make([]float32, n*size)
	}
	j.chainSc = newDBMScratch((n+blockSize-1)/blockSize, wide, j.n[0])
	j.streams = make([]kernel.Stream, n)
	for c := range j.streams {
		j.streams[c] = kernel.NewStream(seed, uint64(c))
	}
	j.allocChains()
	return j
}

// drawUp draws a DBM's layers 1…top of chains c0…c1−1 upward from the
// layer below, doubled below the top, as its bottom-up pass.
func (j *dbmJoint) drawUp(c0, c1, top int) {
	sc, L := &j.chainSc[c0/blockSize], len(j.rbms)
	for l := 1; l <= top; l++ {
		f := float32(1)
		if l < L {
			f = 2
		}
		pre := j.upInput(sc, l, j.s[l-1], c0, c1, l == 1 && !j.binaryVisible())
		n := j.n[l]
		for c := c0; c < c1; c++ {
			p := pre[(c-c0)*n : (c-c0+1)*n]
			for i := range p {
				p[i] = j.bias[l][i] + f*p[i]
			}
			kernel.SigmoidBernoulli(sc.prob[:n], j.s[l][c*n:(c+1)*n], p, &j.streams[c])
		}
	}
}

// visibleMeans returns the visible units' conditional means given the
// chains' first hidden layer: d + C⁰h¹ through the unit type's mean.
func (j *dbmJoint) visibleMeans() []float32 {
	n, x, n1 := j.cfg.Chains, j.n[0], j.n[1]
	pre := make([]float32, n*x)
	kernel.Affine(pre, j.bias[0], j.s[1], j.rbms[0].ch, n, n1, x)
	return j.visibleMean(make([]float32, n*x), pre, n)
}

// sampleDBN is GibbsStack for a DBN.
func sampleDBN(ctx context.Context, s *Stack, v []float32, n, steps int, seed uint64) ([]float32, error) {
	L := len(s.RBMs)
	streams := make([]kernel.Stream, n)
	for c := range streams {
		streams[c] = kernel.NewStream(seed, uint64(c))
	}
	// Recognition states up to the top RBM's visible layer.
	states := [][]float32{v}
	for l := 0; l < L-1; l++ {
		m := s.RBMs[l]
		pre := make([]float32, n*m.H)
		in := states[l]
		if l == 0 && m.LogVar != nil {
			in = append([]float32(nil), in...)
			scale := m.inputScale()
			for c := 0; c < n; c++ {
				for k := 0; k < m.X; k++ {
					in[c*m.X+k] *= scale[k]
				}
			}
		}
		kernel.Affine(pre, m.HiddenBias, in, m.c, n, m.X, m.H)
		h := make([]float32, n*m.H)
		prob := make([]float32, m.H)
		for c := 0; c < n; c++ {
			kernel.SigmoidBernoulli(prob, h[c*m.H:(c+1)*m.H], pre[c*m.H:(c+1)*m.H], &streams[c])
		}
		states = append(states, h)
	}
	top := s.RBMs[L-1]
	means, err := Gibbs(ctx, top, states[L-1], n, steps, layerSeed(seed, L))
	if err != nil {
		return nil, err
	}
	// Each layer below drawn from its generative conditional.
	for l := L - 2; l >= 0; l-- {
		m := s.RBMs[l]
		pre := make([]float32, n*m.X)
		kernel.Affine(pre, m.VisibleBias, states[l+1], m.ch, n, m.H, m.X)
		if l == 0 {
			t := samplerFor(m, n, seed)
			means = append([]float32(nil), t.vis.mean(make([]float32, n*m.X), pre, n)...)
			break
		}
		prob := make([]float32, m.X)
		for c := 0; c < n; c++ {
			kernel.SigmoidBernoulli(prob, states[l][c*m.X:(c+1)*m.X], pre[c*m.X:(c+1)*m.X], &streams[c])
		}
	}
	return means, nil
}
