package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/unit"
)

// Model is the view of an RBM that evaluation needs.
//
// C holds the acting weights (W ⊙ A) visible-major, X×H row-major:
// C[j*H+i] is the weight between visible unit j and hidden unit i. This is
// the layout the engine stores, so a trained model is passed without a copy.
// HiddenBias holds the H hidden biases and VisibleBias the X visible biases.
// The hidden units are binary; Visible names the type of the visible units
// (unit.Binary, the zero value, unit.Gaussian or unit.Categorical), and
// Sigma and Groups hold the parameters of the last two.
//
// A binary model has the energy E(x, h) = −dᵀx − bᵀh − xᵀCh over binary x
// and h (d = VisibleBias, b = HiddenBias).
//
// A Gaussian model has real-valued visible units with standard deviations
// σ (Sigma) and the energy of Cho, Ilin & Raiko (2011):
//
//	E(v, h) = Σ_i (v_i − b_i)²/(2σ_i²) − Σ_j c_j h_j − Σ_ij (v_i/σ_i²) C_ij h_j
//
// with b = VisibleBias and c = HiddenBias: given h, v_i ~ N(b_i + Σ_j C_ij h_j,
// σ_i²); given v, h_j ~ Bernoulli(σ(c_j + Σ_i C_ij v_i/σ_i²)).
//
// A categorical model has the binary model's energy over one-hot x: its
// visible units form the groups of Groups (data.Groups offsets covering all
// X units; a classifier's label units are the last group), exactly one unit
// of each group is on, and given h unit k of group g is the one on with
// probability softmax_k(d_gk + (Ch)_gk), the softmax taken over the group.
type Model struct {
	H, X        int
	C           []float32
	HiddenBias  []float32
	VisibleBias []float32
	// Visible is the type of the visible units (the zero value: binary).
	Visible unit.Type
	// Sigma holds the X standard deviations of a Gaussian model's visible
	// units (nil: all 1); other types have none (nil).
	Sigma []float32
	// Groups holds the offsets of a categorical model's groups, covering
	// all X visible units; other types have none (nil).
	Groups data.Groups
}

// Validate checks the shapes, that every parameter is finite and that the
// model has the parameters of its unit type and no others.
func (m *Model) Validate() error {
	_, err := m.units()
	return err
}

// CheckRows checks that rows suit the model as every function of this
// package checks them before it measures them: their kind and shape for
// the model's unit type and, for categorical units, that their groups are
// the model's (labelUnits more visible units after the rows' D, as a
// classifier's label units, form the model's last group).
func (m *Model) CheckRows(rows *data.Set, labelUnits int) error {
	u, err := m.units()
	if err != nil {
		return err
	}
	return u.checkRows(rows, labelUnits)
}

// units validates m and returns the implementation of its unit type,
// prepared for its parameters.
func (m *Model) units() (visible, error) {
	if m == nil {
		return nil, errors.New("eval: nil model")
	}
	if m.H <= 0 || m.X <= 0 {
		return nil, fmt.Errorf("eval: model has H=%d hidden and X=%d visible units; both must be positive", m.H, m.X)
	}
	if m.H > math.MaxInt32 || m.X > math.MaxInt32 || m.H*m.X/m.H != m.X {
		return nil, fmt.Errorf("eval: model size %d×%d is too large", m.X, m.H)
	}
	if len(m.C) != m.X*m.H {
		return nil, fmt.Errorf("eval: model weights C have length %d, want X·H = %d·%d = %d", len(m.C), m.X, m.H, m.X*m.H)
	}
	if len(m.HiddenBias) != m.H {
		return nil, fmt.Errorf("eval: model hidden biases HiddenBias have length %d, want H = %d", len(m.HiddenBias), m.H)
	}
	if len(m.VisibleBias) != m.X {
		return nil, fmt.Errorf("eval: model visible biases VisibleBias have length %d, want X = %d", len(m.VisibleBias), m.X)
	}
	for _, p := range []struct {
		name string
		v    []float32
	}{{"C", m.C}, {"HiddenBias", m.HiddenBias}, {"VisibleBias", m.VisibleBias}} {
		for k, v := range p.v {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, fmt.Errorf("eval: model parameter %s[%d] = %v is not finite", p.name, k, v)
			}
		}
	}
	if err := m.Visible.Check(); err != nil {
		return nil, fmt.Errorf("eval: model: %w", err)
	}
	u := unitsOf(m)
	if err := u.validate(); err != nil {
		return nil, err
	}
	return u, nil
}

// transposed returns Cᵀ, H×X row-major: row i holds hidden unit i's weights
// to every visible unit.
func (m *Model) transposed() []float32 {
	t := make([]float32, len(m.C))
	kernel.Transpose(t, m.C, m.X, m.H)
	return t
}

// transposed64 returns Cᵀ in float64, H×X: row i holds hidden unit i's
// weights to every visible unit.
func transposed64(m *Model) []float64 {
	t := make([]float64, len(m.C))
	for j := 0; j < m.X; j++ {
		for i := 0; i < m.H; i++ {
			t[i*m.X+j] = float64(m.C[j*m.H+i])
		}
	}
	return t
}

// widen returns v in float64.
func widen(v []float32) []float64 {
	w := make([]float64, len(v))
	for i, x := range v {
		w[i] = float64(x)
	}
	return w
}

// checkData validates n rows of X binary values.
func checkData(x []uint8, n, X int) error {
	if n < 0 {
		return fmt.Errorf("eval: negative number of rows %d", n)
	}
	if X > 0 && n > math.MaxInt/X {
		return fmt.Errorf("eval: %d rows of %d units is too large", n, X)
	}
	if len(x) != n*X {
		return fmt.Errorf("eval: data has %d bytes, want %d rows × %d units = %d", len(x), n, X, n*X)
	}
	for k, v := range x {
		if v > 1 {
			return fmt.Errorf("eval: data row %d unit %d has value %d; want 0 or 1", k/X, k%X, v)
		}
	}
	return nil
}

// activeIndices writes the positions of the ones of a binary row to idx and
// returns the prefix.
func activeIndices(idx []int32, row []uint8) []int32 {
	n := 0
	for j, v := range row {
		if v != 0 {
			idx[n] = int32(j)
			n++
		}
	}
	return idx[:n]
}

// sum64 adds float32 values in float64 with four accumulators (a fixed
// order, so the result is reproducible).
func sum64(v []float32) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(v); i += 4 {
		s0 += float64(v[i])
		s1 += float64(v[i+1])
		s2 += float64(v[i+2])
		s3 += float64(v[i+3])
	}
	for ; i < len(v); i++ {
		s0 += float64(v[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// workerCount turns the user's worker setting into a positive count no
// larger than the number of pieces of work.
func workerCount(workers, pieces int) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers > pieces {
		workers = pieces
	}
	if workers < 1 {
		workers = 1
	}
	return workers
}

// parallel calls fn(w, i) for every piece i < n on `workers` goroutines;
// w < workers identifies the goroutine (for its scratch buffers). Pieces are
// handed out dynamically, so callers must make each piece's result depend on
// i only. After the first error no new piece starts; it returns the error of
// the lowest-numbered piece that failed. Once ctx is done no piece starts
// and it returns ctx's error (wrapped): the pieces are short enough (a chunk
// of states or rows, a block of chains checking ctx itself) for Ctrl-C to
// stop a long evaluation within a second or so.
func parallel(ctx context.Context, n, workers int, fn func(w, i int) error) error {
	if n <= 0 {
		return nil
	}
	workers = workerCount(workers, n)
	errs := make([]error, n)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := ctx.Err(); err != nil {
					errs[i] = fmt.Errorf("eval: stopped: %w", err)
					failed.Store(true)
					return
				}
				if err := fn(w, i); err != nil {
					errs[i] = err
					failed.Store(true)
				}
			}
		}(w)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
