package eval

import (
	"context"
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/unit"
)

// DBMExactLogZ returns the exact log Z of a small DBM. Its layers form a
// bipartite graph, the even layers (0, 2, 4, …) on one side and the odd
// ones (1, 3, …) on the other, so given the units of one side those of
// the other are independent and sum out in closed form. It enumerates the
// 2^n joint states of the side with fewer units (ties: the odd side), n at
// most MaxExactBits, and sums the other side out:
//
//	log Z = log Σ_s exp(Σ_{l∈S} b^lᵀs^l + Σ_{l∉S} G_l(s)),
//
// S the enumerated layers and G_l the log partition function of layer l
// given its neighbours' states: Σ_i softplus(b^l_i + (C^{l−1}ᵀh^{l−1} +
// C^l h^{l+1})_i) for a binary layer, and for the visible layer its unit
// type's own sum (binary: softplus; categorical: a log-sum-exp per
// group; Gaussian: the integral of Model's energy). Enumerating the even
// side needs binary visible units; a DBM of Gaussian or categorical
// visible units enumerates the odd side whatever its size. The sums are
// in float64 (the inputs of the summed units kept by adding or
// subtracting one row per Gray-code step, recomputed every 64 steps), so
// the result is as accurate as float64 allows for the model's float32
// parameters. Beyond MaxExactBits it returns an error naming the number of
// units it would enumerate and the limit.
//
// The states are visited in fixed chunks, spread over workers (≤ 0:
// GOMAXPROCS) and reduced in chunk order, so the result does not depend on
// the number of workers; when ctx is done it stops early with an error
// wrapping ctx.Err().
func DBMExactLogZ(ctx context.Context, d *DBM, workers int) (float64, error) {
	if err := d.Validate(); err != nil {
		return math.NaN(), err
	}
	s, e, err := newDBMSum(d)
	if err != nil {
		return math.NaN(), err
	}
	ex := newExactEnum(s, e)
	part, err := ex.parts(ctx, workers, nil)
	if err != nil {
		return math.NaN(), err
	}
	return ex.logZ(part), nil
}

// DBMExactUnits returns the number of units DBMExactLogZ enumerates for
// d (the side of fewer units, or the odd side for Gaussian or
// categorical visible units) and the parity of that side (0: even, 1:
// odd), or d's error (DBM.Validate).
func DBMExactUnits(d *DBM) (n, parity int, err error) {
	if err := d.Validate(); err != nil {
		return 0, 0, err
	}
	n, parity = DBMExactSide(d.Layers[0].Visible, stackSizes(d.Layers))
	return n, parity, nil
}

// DBMExactSide is DBMExactUnits for a DBM of the given layer sizes
// (visible first) and visible unit type, before there is a model: the
// one rule of which side the exact sum enumerates.
func DBMExactSide(visible unit.Type, sizes []int) (n, parity int) {
	var side [2]int
	for l, s := range sizes {
		side[l%2] += s
	}
	if visible != unit.Binary || side[1] <= side[0] {
		return side[1], 1
	}
	return side[0], 0
}

// dbmSum is the exact sum of a DBM (exactTerms): the enumerated units are
// those of the layers of one parity, concatenated in layer order; the
// summed units' inputs are kept in exactScratch.u, the visible layer's
// first (when it is summed, in its type's coordinates) and then those of
// the summed binary layers.
type dbmSum struct {
	rows  []float64 // n×o: how each enumerated unit enters the summed units' inputs
	bias  []float64 // the summed binary units' biases (o − x0)
	o, x0 int
	vis   visible // the visible layer's type when it is summed (x0 = X), else nil
}

// newDBMSum prepares the exact sum of a valid DBM.
func newDBMSum(d *DBM) (*dbmSum, exactSum, error) {
	n, parity, err := DBMExactUnits(d)
	if err != nil {
		return nil, exactSum{}, err
	}
	if n > MaxExactBits {
		side := "even"
		if parity == 1 {
			side = "odd"
		}
		return nil, exactSum{}, fmt.Errorf("eval: exact log Z of the DBM enumerates the %d units of its %s layers (2^%d states); the limit is %d units: use AIS",
			n, side, n, MaxExactBits)
	}
	sizes, b := stackSizes(d.Layers), d.biases()
	L := len(d.Layers)
	s := &dbmSum{}
	// off[l]: the first coordinate of layer l, enumerated or summed.
	off := make([]int, L+1)
	var e exactSum
	var vrows []float64 // the visible layer's rows when it is summed (H¹×X)
	if parity == 1 {
		s.vis, _ = d.Layers[0].units()
		vrows, e.constant = s.vis.layerRows()
		s.x0 = sizes[0]
		s.o = s.x0
	}
	for l := range sizes {
		if l%2 == parity {
			off[l] = e.n
			e.n += sizes[l]
			e.bias = append(e.bias, b[l]...)
		} else if l > 0 {
			off[l] = s.o
			s.o += sizes[l]
			s.bias = append(s.bias, b[l]...)
		}
	}
	e.other = s.o
	s.rows = make([]float64, e.n*s.o)
	for l := parity; l <= L; l += 2 {
		for k := 0; k < sizes[l]; k++ {
			row := s.rows[(off[l]+k)*s.o : (off[l]+k+1)*s.o]
			if l > 0 { // to layer l−1, through C^{l−1} (n_{l−1}×n_l)
				c, nl := d.Layers[l-1].C, sizes[l]
				if l == 1 {
					copy(row[:s.x0], vrows[k*s.x0:(k+1)*s.x0])
				} else {
					for i := 0; i < sizes[l-1]; i++ {
						row[off[l-1]+i] = float64(c[i*nl+k])
					}
				}
			}
			if l < L { // to layer l+1, through C^l (n_l×n_{l+1})
				c, nu := d.Layers[l].C, sizes[l+1]
				for i := 0; i < nu; i++ {
					row[off[l+1]+i] = float64(c[k*nu+i])
				}
			}
		}
	}
	return s, e, nil
}

func (s *dbmSum) exactFresh(sc *exactScratch, act []int32) {
	freshRows64(sc.u, s.rows, act)
}

func (s *dbmSum) exactFlip(sc *exactScratch, j int, on bool) {
	flipRow64(sc.u, s.rows[j*s.o:(j+1)*s.o], on)
}

// exactTerm is the visible layer's G by its type (when summed) plus
// Σ softplus(bias + input) of the summed binary units.
func (s *dbmSum) exactTerm(sc *exactScratch) float64 {
	var t float64
	if s.vis != nil {
		t = s.vis.layerLogZ(sc.u[:s.x0])
	}
	for i, v := range sc.u[s.x0:] {
		t += softplus64(s.bias[i] + v)
	}
	return t
}
