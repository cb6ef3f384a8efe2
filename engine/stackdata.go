package engine

import (
	"context"
	"math"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/ncg-rbm/ncg/kernel"
)

// upperRows is the number of rows upperData draws from one stream: a
// fixed block, so that the sample does not depend on the workers.
const upperRows = 64

// upperData returns the data of RBM l: one sample of the hidden states of
// the RBM m below it for every row of its data d, h ~ σ(b + factor·input)
// (factor 2 for a DBM's RBMs below the top, trained with doubled up
// passes), drawn from streams keyed by the seed, l and the row's block.
//
// Each upper RBM trains on binary states, not on probabilities: the
// engine's binary visible units take lists of their ones, and a sample of
// q(h | data) is what the layer above models in a DBN's greedy training
// (Hinton, Osindero & Teh 2006). One sample per row is drawn once, as the
// visible data are binarised once.
func upperData(ctx context.Context, m *Model, d *Data, factor float32, seed uint64, l, workers int) (*Data, error) {
	h, x := m.H, m.X
	out := &Data{N: d.N, D: h, X: make([]uint8, d.N*h)}
	blocks := (d.N + upperRows - 1) / upperRows
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	scale := m.inputScale()
	var g errgroup.Group
	g.SetLimit(workers)
	for blk := 0; blk < blocks; blk++ {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			r0, r1 := blk*upperRows, min((blk+1)*upperRows, d.N)
			n := r1 - r0
			in := make([]float32, n*x)
			pre := make([]float32, n*h)
			idx, cnt := make([]int32, n*x), make([]int32, n)
			for r := r0; r < r1; r++ {
				row := in[(r-r0)*x : (r-r0+1)*x]
				if d.Real != nil {
					copy(row, d.Real[r*d.D:(r+1)*d.D])
					if scale != nil {
						for j := range row {
							row[j] *= scale[j]
						}
					}
				} else {
					for j, v := range d.X[r*d.D : (r+1)*d.D] {
						row[j] = float32(v)
					}
				}
			}
			if d.Real != nil {
				kernel.Affine(pre, nil, in, m.c, n, x, h)
			} else {
				kernel.AffineBinary(pre, nil, in, m.c, n, x, h, idx, cnt)
			}
			s := kernel.NewStream(seed, keyStackData+uint64(l)<<24+uint64(blk))
			prob := make([]float32, h)
			state := make([]float32, h)
			for c := 0; c < n; c++ {
				p := pre[c*h : (c+1)*h]
				for i := range p {
					p[i] = m.HiddenBias[i] + factor*p[i]
				}
				kernel.SigmoidBernoulli(prob, state, p, &s)
				dst := out.X[(r0+c)*h : (r0+c+1)*h]
				for i, v := range state {
					dst[i] = uint8(v)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// inputScale returns each visible unit's factor in its input to the
// hidden units, 1/σ² = exp(−log σ²) for Gaussian units (as the trainer's
// gaussianUnits computes it), or nil for 1.
func (m *Model) inputScale() []float32 {
	if m.LogVar == nil {
		return nil
	}
	s := make([]float32, m.X)
	for j, z := range m.LogVar {
		s[j] = float32(math.Exp(-float64(z)))
	}
	return s
}
