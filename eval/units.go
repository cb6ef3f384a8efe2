package eval

import (
	"fmt"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/unit"
)

// visible is what one type of visible units does in evaluation: all that
// binary, Gaussian and categorical units do differently, each type in a
// file of its own (binary.go, gaussian.go, categorical.go). unitsOf
// chooses the implementation from Model.Visible; the exact sum, AIS,
// RAISE, free energies, NLL, classification and Evaluate are written once
// over this interface. Every method works on a whole row, chunk of rows or
// block of chains, so that the loops inside stay monomorphic.
//
// A value belongs to one evaluation: Model.units makes a new one each time,
// exact and anneal prepare it further, and then it is read-only (workers
// share it, each with its own scratch).
type visible interface {
	// validate checks the model's parameters of the type (Sigma, Groups),
	// and that it has none of another type's, and prepares what the other
	// methods read from them (Model.units calls it).
	validate() error
	// checkRows checks rows to be measured by the model: rows of the
	// type's kind (unit.Type.Accepts), valid values, and units filling
	// the model's visible layer but its last extra units (a classifier's
	// label units, which the rows lack).
	checkRows(rows *data.Set, extra int) error
	// labels returns an error unless the model's last L visible units can
	// be label units, one-hot, in classification.
	labels(L int) error

	// hiddenInputs writes b + C·(the input of the row) for rows lo…hi−1 of
	// rows to a, (hi−lo)×H, using s's scratch.
	hiddenInputs(a []float32, rows *data.Set, lo, hi int, s *rowScratch)
	// visibleEnergy returns the visible-only term of row r's free energy:
	// F(row) = visibleEnergy − Σ_i softplus(hidden input i).
	visibleEnergy(rows *data.Set, r int) float64

	// exact prepares the exact sum of log Z: it returns which units are
	// enumerated (their number is Visible.ExactLayer's) and the constant
	// added to the log-sum-exp.
	exact() exactSum
	// The exact sum's terms (exactTerms) over the units exact chose.
	exactTerms
	// layerRows and layerLogZ give, in float64, the log partition function
	// of the visible layer given a state h of the hidden layer, G(h) =
	// log Σ_x exp(−E(x, h)) − bᵀh (the sum an integral for Gaussian
	// units), for the deep models (deep*.go), which sum the visible layer
	// out whatever the sizes of the layers: layerRows returns H rows of X
	// (row j: how hidden unit j enters G, in the type's coordinates: C's
	// column j for binary and categorical units, C_·j/σ for Gaussian ones)
	// and G's constant; layerLogZ returns G(h) less the constant given u,
	// the sum of the rows of the units of h that are on.
	layerRows() (rows []float64, constant float64)
	layerLogZ(u []float64) float64

	// fitBase returns the AIS base model fitted to the training rows
	// (AISConfig.BaseBias).
	fitBase(train *data.Set) ([]float32, error)
	// anneal prepares AIS and RAISE from the base model base (nil: the
	// type's default) and returns its log Z_A and the bias of the visible
	// product that the chains keep (bias + Cᵀh).
	anneal(base []float32) (logZA float64, vbias []float32, err error)
	// initBlock allocates the type's scratch of a block of chains.
	initBlock(b *chainBlock)
	// start draws chain i's visible state from the base model.
	start(b *chainBlock, i int)
	// hiddenChains sets the hidden inputs b.a of the block's first n
	// chains from their visible states.
	hiddenChains(b *chainBlock, n int)
	// increment returns chain i's log-weight increment log p*_{β_k}(x) −
	// log p*_{β_{k−1}}(x), given db = β_k − β_{k−1} and dsp, the hidden
	// units' part Σ_i softplus(β_k a_i) − softplus(β_{k−1} a_i).
	increment(b *chainBlock, i int, db, dsp float64) float64
	// draw draws chain i's visible state from the transition at beta,
	// given the visible product b.v = vbias + Cᵀh.
	draw(b *chainBlock, i int, beta float32)

	// RAISE's reverse step, chain i of a block: load sets the chain's
	// visible state to row r of rows; raiseStart returns the chain's first
	// log p̂ term; raiseUp adds log p*_β at the state the step starts from,
	// raiseDown subtracts it at the state it draws (both up to terms that
	// telescope, which raiseStart and raiseEnd account for); raiseEnd
	// adds the base model's log-probability of the last state.
	load(b *chainBlock, i int, rows *data.Set, r int)
	raiseStart(b *chainBlock, i int) float64
	raiseUp(b *chainBlock, i int, beta float32, logp float64) float64
	raiseDown(b *chainBlock, i int, beta float32, logp float64) float64
	raiseEnd(b *chainBlock, i int, logp float64) float64

	// The hidden-marginal AIS (aishidden.go), prepared by anneal(nil):
	// marginalStep returns chain i's G_bk − G_bp, G_β the log partition
	// function of the visible layer at inverse temperature β given the
	// visible input b.v = VisibleBias + Cᵀh, and when draw is set draws
	// the chain's visible state from that layer's conditional at bk;
	// marginalConst is the constant that completes log Z_A and log Z (G_0
	// for binary and categorical units, Σ_i ½·log(2πσ_i²) for Gaussian ones).
	marginalStep(b *chainBlock, i int, bk, bp float32, draw bool) float64
	marginalConst() float64
	// checkRoutes returns the type's two check routes (CheckRoutes).
	checkRoutes() []Route
}

// exactTerms is what the exact sum asks of the units it sums out, given
// the state of the units it enumerates.
type exactTerms interface {
	// exactFresh sets s's input of the summed units for the enumerated
	// units act on; exactFlip updates it when enumerated unit j switches
	// on or off; exactTerm returns the log partition function of the
	// summed units given that input.
	exactFresh(s *exactScratch, act []int32)
	exactFlip(s *exactScratch, j int, on bool)
	exactTerm(s *exactScratch) float64
}

// unitsOf returns the implementation of m's type of visible units: the one
// place that maps a unit.Type to its behaviour in evaluation.
func unitsOf(m *Model) visible {
	switch m.Visible {
	case unit.Gaussian:
		return &gaussUnits{m: m}
	case unit.Categorical:
		return &categoricalUnits{binaryStates: binaryStates{m: m}}
	}
	return &binaryUnits{binaryStates: binaryStates{m: m}}
}

// FitBase returns the base model that AIS and RAISE start from, fitted to
// the training rows train as the model's unit type says (for
// AISConfig.BaseBias and RAISEConfig.BaseBias): DataBaseRate of the rows
// for binary units, BaseMean for Gaussian ones, and for categorical units
// the log of each unit's frequency within its group, smoothed like
// DataBaseRate's (BasePseudoCount·N added to every unit's count). Evaluate
// uses it unless Plan.UniformBase is set.
func FitBase(m *Model, train *data.Set) ([]float32, error) {
	u, err := m.units()
	if err != nil {
		return nil, err
	}
	if err := u.checkRows(train, 0); err != nil {
		return nil, err
	}
	return u.fitBase(train)
}

// checkShape checks what every type asks of rows: a set, of X − extra
// units, with as many values as it says.
func checkShape(m *Model, rows *data.Set, extra int) error {
	if rows == nil {
		return fmt.Errorf("eval: no rows")
	}
	if rows.N < 0 {
		return fmt.Errorf("eval: %s: negative number of rows %d", rows.Name, rows.N)
	}
	if rows.D+extra != m.X {
		if extra > 0 {
			return fmt.Errorf("eval: %s has rows of %d units; the model has %d visible units, %d of them label units", rows.Name, rows.D, m.X, extra)
		}
		return fmt.Errorf("eval: %s has rows of %d units; the model has %d visible units", rows.Name, rows.D, m.X)
	}
	return nil
}

// rowScratch is a worker's scratch for hiddenInputs.
type rowScratch struct {
	idx []int32   // the active units of a binary row
	s   []float32 // rows scaled by 1/σ²
}

// exactScratch is a worker's scratch for the exact sum: the other layer's
// input, in float32 (pre, with sp for its softplus) or float64 (u).
type exactScratch struct {
	pre, sp []float32
	u       []float64
}

// exactSum says what the exact sum of log Z enumerates: n units with biases
// bias (their linear term), summing out the other layer's units
// analytically, and the constant added at the end.
type exactSum struct {
	n, other int
	bias     []float64
	constant float64
	visible  bool // the enumerated units are the visible ones (a binary model's smaller layer)
}

// chainBlock is a worker's scratch for a block of up to maxBlockRuns
// chains (AIS runs or RAISE chains) advanced in lockstep.
type chainBlock struct {
	x, h []float32 // size×X visible and size×H hidden states
	a    []float32 // size×H: the hidden inputs b + C·(input of x)
	v    []float32 // size×X: the visible product vbias + Cᵀh
	st   []kernel.Stream
	vp   *blockProduct // keeps v
	s1   []float32     // β·a of one chain (H)
	sp   []float32     // scratch for softplusDiff (2H)
	prob []float32     // probabilities of one chain (max(H, X))
	sx   []float32     // the hidden-marginal AIS: β·v of one chain (X)
	spx  []float32     // and its softplusDiff's scratch (2X)

	// The types' own scratch (initBlock).
	hp   *blockProduct // binary states: keeps a
	pre  []float32     // binary states: the visible pre-activation (X)
	lin  []float64     // binary states: each chain's xᵀ(d − d_A) in RAISE
	s    []float32     // Gaussian: size×X, x/σ²
	z    []float32     // Gaussian: normal draws (X)
	zbuf []uint32      // Gaussian: their uniform draws (X+1)
}

// newChainBlock returns the scratch of a block of size chains of m.
func newChainBlock(u visible, size, H, X int) *chainBlock {
	b := &chainBlock{
		x: make([]float32, size*X), h: make([]float32, size*H),
		a: make([]float32, size*H), v: make([]float32, size*X),
		st: make([]kernel.Stream, size), vp: newBlockProduct(size, H, X),
		s1: make([]float32, H), sp: make([]float32, 2*H), prob: make([]float32, max(H, X)),
		sx: make([]float32, X), spx: make([]float32, 2*X),
	}
	u.initBlock(b)
	return b
}
