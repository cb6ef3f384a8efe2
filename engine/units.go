package engine

import (
	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/unit"
)

// Visible unit types in training. Each type that package unit names is
// one implementation of visibleUnits: binary (units_binary.go), Gaussian
// (units_gaussian.go) and categorical (units_categorical.go). The block
// functions of the samplers (cdBlock, ptBlock) hold the chain's steps and
// ask the trainer's visibleUnits for what depends on the type: the input
// a chain's visible states give the hidden units, the draw of the visible
// states from their input, the conditional means, the energy, the type's
// share of the gradient and its own parameters. Each method works on a
// block of chains or a chunk of rows, so the hot loops stay those of one
// type (no call per unit).
//
// Two kinds of visible states lie under the types. Binary states (binary
// and categorical units, 0 or 1) enter the up pass and the gradient as
// lists of their ones, kept up to date between Gibbs steps (binaryInput);
// real-valued states (Gaussian units) enter as dense products. Hidden
// units are binary in every type.

// stateRole says which of a chain's visible states an up pass reads: the
// data (the positive phase), an intermediate state of the chain, or its
// final state (the negative statistics). Binary states keep the lists of
// the first and last for the gradient; Gaussian units keep them scaled.
type stateRole int

const (
	rolePos stateRole = iota
	roleMid
	roleNeg
)

// visibleUnits is a visible unit type's part in training. The trainer
// holds one (Trainer.vis), made by newVisibleUnits once its arrays exist.
type visibleUnits interface {
	// checkConfig reports, through bad, the settings the type does not
	// take; checkData the data it cannot train on beyond what
	// unit.Type.Accepts says (label units).
	checkConfig(c Config, bad func(format string, args ...any))
	checkData(d *Data) error
	// checkModel checks the type's parameters of m (their shapes).
	checkModel(m *Model) error
	// initModel gives the new model m of data d the type's parameters;
	// bind takes what the type reads of a model's (m's groups).
	initModel(m *Model, d *Data)
	bind(m *Model)
	// binaryStates reports whether the states are 0 and 1 (binary and
	// categorical units), which the up pass and the gradient take as
	// lists of ones, on compressed rows too.
	binaryStates() bool
	// alloc sizes the type's own scratch and state (after the trainer's
	// arrays) and sets up its parameters' derived values.
	alloc(t *Trainer)
	// refresh recomputes what derives from the type's parameters (σ from
	// log σ²) after they are set (alloc, a checkpoint read).
	refresh(t *Trainer)
	// load sets dst, one slot's data units, from row r of the data.
	load(dst []float32, d *Data, r int)
	// prepare runs before every minibatch's chains.
	prepare(t *Trainer)
	// up sets hpre (rows of H) = b + the input of the states of chains
	// c0…c1−1 of block blk, whose role r is; fresh asks for sums from
	// scratch where the type would otherwise update the last ones.
	up(t *Trainer, blk, c0, c1 int, hpre, states []float32, r stateRole, fresh bool)
	// mean sets the conditional means of nc chains' visible units given
	// their input pre = d + C h (rows of X), without drawing, and returns
	// the slice holding them (dst, or pre itself).
	mean(dst, pre []float32, nc int) []float32
	// sample draws the visible states of nc chains of block blk at inverse
	// temperature beta from their input pre (rows of X), each chain from
	// its stream, and returns the slice holding their conditional means at
	// beta (dst, or pre itself); pre is left unchanged unless it is dst
	// (the doubled input of DoubleDown, double.go).
	sample(t *Trainer, blk int, states, dst, pre []float32, nc int, beta float64, streams []kernel.Stream) []float32
	// energy returns E(v, h) of one chain's state given vpre = d + C h, in
	// float64 (parallel tempering's swaps).
	energy(t *Trainer, h, v, vpre []float32) float64
	// finishBlock takes block blk's share of the gradients after its
	// chains, beyond the visible biases' (blockVisibleGrad).
	finishBlock(t *Trainer, blk int)
	// gradStates returns the slots' data and final chain states as the
	// gradient pairs them with ĥ⁺ and −ĥ⁻.
	gradStates(t *Trainer) (pos, neg []float32)
	// rowGrad prepares row chunk k's gradient (rows j0…j1−1), and gradRow
	// returns row j's, in g (H floats, zero) or in the type's own array.
	rowGrad(t *Trainer, k, j0, j1 int)
	gradRow(t *Trainer, k, j int, g []float32) []float32
	// step updates the type's own parameters of visible units j0…j1−1
	// after their biases and reports whether they are finite.
	step(t *Trainer, j0, j1 int) bool
	// inputScale returns each visible unit's factor in its input to the
	// hidden units and in the gradient (1/σ² of learned σ), or nil for 1.
	inputScale() []float32
	// fileNames are the names of the type's own entries of model.npz,
	// the first saying that a file holds the type; fileEntries are their
	// arrays for m, and readFile reads them into m (export.go).
	fileNames() []string
	fileEntries(m *Model) []npzItem
	readFile(f *npzFile, m *Model) error
	// params and velocities are the type's own parameters and their
	// velocities in checkpoint order (after the biases, and after the
	// biases' velocities).
	params(t *Trainer) [][]float32
	velocities(t *Trainer) [][]float32
}

// unitsOf returns the behaviour of visible units of type u (a value to
// set up with initModel and alloc): the one place the engine maps a
// unit.Type to its implementation.
func unitsOf(u unit.Type) visibleUnits {
	switch u {
	case unit.Gaussian:
		return &gaussianUnits{}
	case unit.Categorical:
		return &categoricalUnits{}
	}
	return binaryUnits{}
}
