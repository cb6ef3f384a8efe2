package eval

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/kernel"
)

// keySample offsets the ids of SampleExact's streams from those of AIS
// runs and RAISE chains of the same seed (row i draws from
// kernel.NewStream(seed, keySample + i)).
const keySample = 1 << 40

// SampleExact draws n rows exactly from the model, with log Z on the way:
// the state of the layer the exact sum enumerates (ExactLogZ) from its
// marginal, p(s) = exp(term(s))/Z, then, when that is the hidden layer, the
// visible layer from its conditional given it (binary: σ(d + Cᵀh);
// categorical: each group from softmax(d + Cᵀh); Gaussian: N(d + Cᵀh, σ²)).
// The marginal is enumerated as ExactLogZ enumerates it (2^n states, n =
// unit.Type.ExactLayer, at most MaxExactBits): row i takes two uniforms of
// kernel.NewStream(seed, keySample + i), the first choosing a chunk of
// 4096 states by its share of Z, the second a state within it by its
// share of the chunk, and the stream then draws the visible layer. The
// rows are of the kind FreeEnergies takes (binary, categorical with the
// model's groups, or real-valued), and the result does not depend on the
// number of workers.
func SampleExact(ctx context.Context, m *Model, n int, seed uint64, workers int) (rows *data.Set, logZ float64, err error) {
	u, err := m.units()
	if err != nil {
		return nil, math.NaN(), err
	}
	if n < 1 {
		return nil, math.NaN(), fmt.Errorf("eval: SampleExact needs at least one row (have %d)", n)
	}
	ex, err := newExactSum(m, u)
	if err != nil {
		return nil, math.NaN(), err
	}
	part, err := ex.parts(ctx, workers, nil)
	if err != nil {
		return nil, math.NaN(), err
	}
	logZ = ex.logZ(part)
	cum := cumulative(part)

	// Each row's stream and its two uniforms (53 bits each).
	st := make([]kernel.Stream, n)
	chunk := make([]int, n)
	u2 := make([]float64, n)
	buf := make([]uint32, 4)
	for i := range st {
		st[i] = kernel.NewStream(seed, keySample+uint64(i))
		st[i].Uint32s(buf)
		chunk[i] = pick(cum, uniform53(buf[0], buf[1]))
		u2[i] = uniform53(buf[2], buf[3])
	}
	// The chunks drawn, each enumerated once, its rows' states picked.
	drawn := slices.Clone(chunk)
	slices.Sort(drawn)
	drawn = slices.Compact(drawn)
	states := make([]uint64, n)
	workers = workerCount(workers, len(drawn))
	sc := make([]*exactWalkScratch, workers)
	terms := make([][]float64, workers)
	for w := range sc {
		sc[w], terms[w] = ex.newScratch(), make([]float64, 1<<ex.k)
	}
	err = parallel(ctx, len(drawn), workers, func(w, d int) error {
		c, t := drawn[d], terms[w]
		var order []uint64
		k := 0
		ex.walk(sc[w], c, func(state uint64, term float64) {
			t[k] = term
			order = append(order, state)
			k++
		})
		ct := cumulative(t)
		for i := range chunk {
			if chunk[i] == c {
				states[i] = order[pick(ct, u2[i])]
			}
		}
		return nil
	})
	if err != nil {
		return nil, math.NaN(), err
	}
	rows, err = sampleRows(ctx, m, u, !ex.e.visible, states, st, workers)
	return rows, logZ, err
}

// uniform53 is a uniform in [0, 1) of 53 bits from two draws.
func uniform53(a, b uint32) float64 {
	return float64(uint64(a)<<21^uint64(b)>>11) * (1.0 / (1 << 53))
}

// cumulative returns the running sums of exp(v_i − max v), in order.
func cumulative(v []float64) []float64 {
	mx := math.Inf(-1)
	for _, x := range v {
		mx = math.Max(mx, x)
	}
	cum := make([]float64, len(v))
	var c float64
	for i, x := range v {
		c += math.Exp(x - mx)
		cum[i] = c
	}
	return cum
}

// pick returns the first index whose running sum exceeds u times the
// total: index i with probability proportional to exp(v_i) for u uniform
// in [0, 1).
func pick(cum []float64, u float64) int {
	x := u * cum[len(cum)-1]
	return sort.Search(len(cum)-1, func(i int) bool { return cum[i] > x })
}

// sampleRows turns the enumerated layer's states into rows: when it is
// the hidden layer (hidden), each row's visible layer is drawn from its
// conditional given its state, from the row's stream, in lockstep blocks;
// else the states are the binary rows.
func sampleRows(ctx context.Context, m *Model, u visible, hidden bool, states []uint64, st []kernel.Stream, workers int) (*data.Set, error) {
	n, X, H := len(states), m.X, m.H
	rows := &data.Set{Name: "rows drawn from the model", N: n, D: X, Groups: m.Groups}
	x := make([]float32, n*X)
	if !hidden {
		for i, s := range states {
			for j := 0; j < X; j++ {
				x[i*X+j] = float32(s >> j & 1)
			}
		}
	} else {
		// The transitions of AIS from the zero base at β = 1 draw from the
		// model's visible conditional.
		r, _, err := newAISRunner(m, u, nil, nil, 0)
		if err != nil {
			return nil, err
		}
		r.done = ctx.Done()
		_, err = runInBlocks(ctx, n, workers, r.newBlock, func(b *chainBlock, first int, rowsOf []float64) {
			cnt := len(rowsOf)
			for i := 0; i < cnt; i++ {
				b.st[i] = st[first+i]
				for j := 0; j < H; j++ {
					b.h[i*H+j] = float32(states[first+i] >> j & 1)
				}
			}
			b.vp.reset()
			b.vp.update(b.v, r.vbias, r.ct, r.xs, cnt, b.h)
			for i := 0; i < cnt; i++ {
				u.draw(b, i, 1)
				copy(x[(first+i)*X:(first+i+1)*X], b.x[i*X:(i+1)*X])
			}
		}, r.stopErr)
		if err != nil {
			return nil, err
		}
	}
	if m.Visible.Continuous() {
		rows.Real = x
		return rows, nil
	}
	rows.X = make([]uint8, len(x))
	for k, v := range x {
		rows.X[k] = uint8(v)
	}
	return rows, nil
}
