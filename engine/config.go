// Package engine trains RBMs with binary hidden units and visible units
// of any type of package unit (Config.Visible: binary, Gaussian with a
// fixed or learned σ per unit, or categorical) with CD-k, PCD-k or parallel tempering, optionally
// with momentum, weight decay and a learning-rate schedule: dense, NCG (learned connectivity), line, random and SET models,
// with each minibatch's Gibbs chains spread over goroutines. A run is a pure function of its Config:
// the result is bit-identical whatever the number of workers or GOMAXPROCS.
//
// The engine owns parameters, the training loop, checkpoints and export. It
// does not read files of data sets (package data does), evaluate likelihoods
// (package eval) or print anything: progress goes to the caller through
// OnEpoch.
//
// Layout: every H×X matrix of the paper (W, A, A′, C) is stored visible-major,
// as X×H row-major (element [j*H+i] is the connection between visible j and
// hidden i), because a binary visible state selects whole rows of it in the
// up pass and in the gradient. A hidden-major copy of C (H×X) serves the down
// pass. Label units, in classification mode, are the last visible units, so
// their connections are the last rows. A fixed mask at most SparseDensity()
// dense (SET's paper setting) also keeps C as compressed rows in both
// orientations and sums only the present connections.
package engine

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ncg-rbm/ncg/unit"
)

// Method names a connectivity method.
type Method string

// The connectivity methods (docs/algorithm.md, "Connectivity methods").
const (
	Dense  Method = "dense"  // all connections, A ≡ 1
	NCG    Method = "ncg"    // learned connectivity through A′
	Line   Method = "line"   // fixed: each hidden unit sees V consecutive visible units
	Random Method = "random" // fixed: Erdős–Rényi with density Density
	SET    Method = "set"    // Erdős–Rényi start, prune and regrow every epoch
)

// Methods returns the connectivity methods, in the order help, reports and
// documents list them: the one list of them (Validate, ncgbench's help and
// report's order read it).
func Methods() []Method { return []Method{Dense, NCG, Line, Random, SET} }

// Sampler names the Markov chain that gives the negative statistics.
type Sampler string

// The samplers. The zero value "" is CD-k.
const (
	CD                Sampler = "cd"  // k Gibbs steps from the data
	PersistentCD      Sampler = "pcd" // k Gibbs steps from the previous minibatch's chain
	ParallelTempering Sampler = "pt"  // persistent chains at several temperatures, with swaps
)

// Samplers returns the samplers, CD (the zero value's) first: the one
// list of them.
func Samplers() []Sampler { return []Sampler{CD, PersistentCD, ParallelTempering} }

// Schedule names a learning-rate schedule.
type Schedule string

// The schedules. The zero value "" is Constant.
const (
	Constant Schedule = "constant"
	Linear   Schedule = "linear"
	Step     Schedule = "step"
)

// SETProcedure names how a SET model trains and rewires.
type SETProcedure string

// The SET procedures. The zero value "" is this engine's: the configured
// sampler (CD-k by default) with the usual statistics, rewiring after
// every epoch but the last, regrown weights from U(−0.01·max(1, InitScale),
// +0.01·max(1, InitScale)).
const (
	// Mocanu is the procedure of the SET authors' public SET-RBM code
	// (Mocanu et al. 2018): each Gibbs step reconstructs the visible units
	// by their probabilities (mean field) and samples the hidden units
	// from them; the gradient pairs the data with the sampled ĥ⁰ and the
	// visible probabilities with the last hidden sample; L2 decays the
	// biases as well as W; regrown weights come from N(0, InitScale²);
	// and after the last epoch the weakest connections are removed without
	// regrowth. docs/training.md lists the steps.
	Mocanu SETProcedure = "mocanu"
)

// The SET authors' settings, which experiment.NewSpec (and so ncgbench
// -set-procedure mocanu) gives where they are not given: CD-1, weights
// from N(0, 0.05²), and a decay of every weight and bias by 2·10⁻⁷ of its
// value per update, which is L2 = MocanuDecay/LR here (the engine's L2 is
// scaled by α).
const (
	MocanuK         = 1
	MocanuInitScale = 0.05
	MocanuDecay     = 2e-7
)

// Init names a weight initialisation.
type Init string

// The initialisations.
const (
	Uniform Init = "uniform" // U(−InitScale, InitScale)
	Normal  Init = "normal"  // N(0, InitScale²)
	Zero    Init = "zero"    // all weights 0
)

// Default PT settings, which experiment.NewSpec and Spec.Normalize give a
// PT run (Config has none of its own).
const (
	DefaultTemperatures = 10
	DefaultMinBeta      = 0.1
)

// Config is every setting of a training run. The zero value is not valid;
// start from DefaultConfig.
type Config struct {
	Method Method `json:"method"`
	Hidden int    `json:"hidden"` // H

	K      int     `json:"k"`       // CD-k Gibbs steps; PT: rounds of a step per temperature and swaps
	Batch  int     `json:"batch"`   // minibatch size
	LR     float64 `json:"lr"`      // α, weights and biases
	LRConn float64 `json:"lr_conn"` // α_A, connection strength (NCG)
	Gamma  float64 `json:"gamma"`   // γ, threshold on A′ (NCG)
	Epochs int     `json:"epochs"`
	Seed   uint64  `json:"seed"`

	P         float64 `json:"p,omitempty"`       // NCG initial density
	LineWidth int     `json:"v,omitempty"`       // line: visible units per hidden unit
	Density   float64 `json:"density,omitempty"` // random density
	Epsilon   float64 `json:"epsilon,omitempty"` // SET ε
	Zeta      float64 `json:"zeta,omitempty"`    // SET ζ
	// SETProcedure is how a SET model trains ("" or Mocanu).
	SETProcedure SETProcedure `json:"set_procedure,omitempty"`

	Init      Init    `json:"init"`       // weight initialisation
	InitScale float64 `json:"init_scale"` // a of U(−a, a), or σ of N(0, σ²)

	// Visible is the type of the visible units (unit.Binary, the zero
	// value, unit.Gaussian or unit.Categorical). Gaussian units read
	// Data.Real; categorical units read Data.X with Data.Groups.
	Visible unit.Type `json:"visible,omitempty"`
	// LearnSigma learns each Gaussian visible unit's σ through z = log σ²
	// (from σ = 1); without it σ stays 1.
	LearnSigma bool `json:"learn_sigma,omitempty"`
	// SigmaStep is the step size of z = log σ² relative to α's (learned
	// σ only; 0 means 1, the visible biases' step): z needs a smaller one
	// than the weights, as in Melchior's PyDeep, whose Gaussian-binary RBMs
	// with trainable variances take a tenth of α for σ.
	SigmaStep float64 `json:"sigma_step,omitempty"`
	// MinSigma is the least σ a learned σ takes (0: none): after every
	// step, z = max(z, 2 log MinSigma). A unit that is constant in the
	// data otherwise drives its σ to 0 and the model to NaN.
	MinSigma float64 `json:"min_sigma,omitempty"`

	// Centre trains the model centred (Melchior, Fischer & Wiskott 2016):
	// the gradient of every parameter is taken with the visible units
	// offset by the data's mean and the hidden units by a running mean of
	// ĥ⁺ (docs/algorithm.md, "Centred training"). The model keeps the
	// ordinary parameterisation; only the direction of each step changes.
	Centre bool `json:"centre,omitempty"`

	// Sampler of the negative statistics: "" (or CD) is CD-k,
	// PersistentCD PCD-k; ParallelTempering runs Temperatures persistent
	// chains per slot (see ptBlock). A configuration written as JSON with
	// "pcd": true (the form of earlier files) reads as PersistentCD.
	Sampler      Sampler `json:"sampler,omitempty"`
	Temperatures int     `json:"temperatures,omitempty"` // PT: chains per slot, M ≥ 2
	MinBeta      float64 `json:"min_beta,omitempty"`     // PT: the lowest inverse temperature, 0 < β < 1

	// Momentum μ of the weights and biases (0: none). The first
	// MomentumEpochs epochs use MomentumStart instead (Hinton's guide: 0.5
	// for the first few epochs, then 0.9). NCG's connection strength A′
	// never gets momentum: it follows the minibatch's gradient.
	Momentum       float64 `json:"momentum,omitempty"`
	MomentumStart  float64 `json:"momentum_start,omitempty"`
	MomentumEpochs int     `json:"momentum_epochs,omitempty"`
	// L2 and L1 weight decay of W (not of the biases, as Hinton's guide
	// advises; not of A′): the step follows g/B − L2·w − L1·sign(w).
	L2 float64 `json:"l2,omitempty"`
	L1 float64 `json:"l1,omitempty"`

	// LRSchedule makes α depend on the epoch e (0-based); LRConn stays
	// constant. Linear goes from LR at epoch 0 to LRFinal at the last
	// epoch; Step multiplies α by LRStepFactor every LRStepEvery epochs.
	LRSchedule   Schedule `json:"lr_schedule,omitempty"`
	LRFinal      float64  `json:"lr_final,omitempty"`
	LRStepEvery  int      `json:"lr_step_every,omitempty"`
	LRStepFactor float64  `json:"lr_step_factor,omitempty"`

	// DoubleUp and DoubleDown double the input of the hidden units
	// (P(h | x) = σ(b + 2·input)) and of the visible units (their input
	// d + 2Ch): a deep Boltzmann machine's pre-training (Salakhutdinov &
	// Hinton 2012) trains its bottom RBM with DoubleUp, its top one with
	// DoubleDown and those between with both, standing in for the layer
	// each RBM will have on its other side. The gradient's statistics are
	// those of the doubled conditionals. CD and PCD only.
	DoubleUp   bool `json:"double_up,omitempty"`
	DoubleDown bool `json:"double_down,omitempty"`

	// Workers is the number of goroutines a run uses (0: GOMAXPROCS). It
	// changes the speed, never the result, and is not part of the run's
	// identity.
	Workers int `json:"-"`
}

// DefaultConfig returns the paper's MNIST settings for NCG (the paper's section 5).
func DefaultConfig() Config {
	return Config{
		Method: NCG, Hidden: 500, K: 10, Batch: 50, LR: 0.1, LRConn: 0.5, Gamma: 0.5,
		Epochs: 10, Seed: 1, P: 0.5, LineWidth: 392, Density: 0.5, Epsilon: 11, Zeta: 0.3,
		Init: Uniform, InitScale: 1, SigmaStep: DefaultSigmaStep, MinSigma: DefaultMinSigma,
	}
}

// The learned σ's defaults (DefaultConfig, and so ncgbench's flags).
const (
	DefaultSigmaStep = 0.1
	DefaultMinSigma  = 0.01
)

// Validate checks every setting against a data width of visible data units
// (label units excluded); visible ≤ 0 skips the width-dependent checks.
func (c Config) Validate(visible int) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	// Every setting is used in float32: one beyond its range is Inf there,
	// and the first minibatch's weights NaN.
	finite := func(name string, v float64) bool {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			bad("%s = %v is not a finite number", name, v)
			return false
		case math.Abs(v) > math.MaxFloat32:
			bad("%s = %v is beyond float32's range (±%.4g), in which training computes", name, v, math.MaxFloat32)
			return false
		}
		return true
	}
	if !slices.Contains(Methods(), c.Method) {
		bad("method %q is not one of %s", c.Method, names(Methods()))
	}
	if c.Hidden <= 0 {
		bad("hidden = %d: need at least 1 hidden unit", c.Hidden)
	}
	if c.K < 1 {
		bad("k = %d: CD-k needs k ≥ 1", c.K)
	}
	if c.Batch < 1 {
		bad("batch = %d: need at least 1", c.Batch)
	}
	if c.Epochs < 0 {
		bad("epochs = %d is negative", c.Epochs)
	}
	if finite("lr", c.LR) && c.LR < 0 {
		bad("lr = %v is negative", c.LR)
	}
	if c.Method == NCG {
		if finite("lr-conn", c.LRConn) && c.LRConn < 0 {
			bad("lr-conn = %v is negative", c.LRConn)
		}
		if finite("gamma", c.Gamma) && (c.Gamma <= 0 || c.Gamma >= 1) {
			bad("gamma = %v: need 0 < γ < 1", c.Gamma)
		}
		if finite("p", c.P) && (c.P < 0 || c.P > 1) {
			bad("p = %v: need 0 ≤ p ≤ 1", c.P)
		}
	}
	if c.Method == Random && finite("density", c.Density) && (c.Density < 0 || c.Density > 1) {
		bad("density = %v: need 0 ≤ d ≤ 1", c.Density)
	}
	switch {
	case c.Method == Line && c.LineWidth < 1:
		bad("v = %d: a line needs at least 1 visible unit per hidden unit", c.LineWidth)
	case c.Method == Line && visible > 0 && c.LineWidth > visible:
		bad("v = %d: need 1 ≤ v ≤ %d (the number of visible data units)", c.LineWidth, visible)
	}
	if c.Method == SET {
		if finite("epsilon", c.Epsilon) && c.Epsilon <= 0 {
			bad("epsilon = %v: need ε > 0", c.Epsilon)
		} else if visible > 0 && c.Hidden > 0 && c.Epsilon*float64(visible+c.Hidden)/float64(visible*c.Hidden) > 1 {
			bad("epsilon = %v: density ε(X+H)/(XH) = %.3g exceeds 1", c.Epsilon, c.Epsilon*float64(visible+c.Hidden)/float64(visible*c.Hidden))
		}
		if finite("zeta", c.Zeta) && (c.Zeta < 0 || c.Zeta >= 1) {
			bad("zeta = %v: need 0 ≤ ζ < 1", c.Zeta)
		}
	}
	switch c.Init {
	case Uniform, Normal:
		if finite("init-scale", c.InitScale) && c.InitScale < 0 {
			bad("init-scale = %v is negative", c.InitScale)
		}
	case Zero:
	default:
		bad("init %q is not one of uniform, normal, zero", c.Init)
	}
	if c.Workers < 0 {
		bad("workers = %d is negative", c.Workers)
	}
	if err := c.Visible.Check(); err != nil {
		bad("%v", err)
	} else {
		unitsOf(c.Visible).checkConfig(c, bad)
	}
	if c.Centre && c.SETProcedure == Mocanu {
		bad("centre: set-procedure %s trains uncentred, as its authors' code does", Mocanu)
	}
	c.validateTraining(bad, finite)
	return errors.Join(errs...)
}

// validateTraining checks the sampler, momentum, decay and schedule.
func (c Config) validateTraining(bad func(string, ...any), finite func(string, float64) bool) {
	switch c.SETProcedure {
	case "":
	case Mocanu:
		if c.Method != SET {
			bad("set-procedure %s applies to the set method, not %s", c.SETProcedure, c.Method)
		}
		if c.sampler() != CD {
			bad("set-procedure %s trains with CD-k, not the %s sampler", c.SETProcedure, c.sampler())
		}
	default:
		bad("set-procedure %q is not %q (or empty)", c.SETProcedure, Mocanu)
	}
	c.checkDoubling(bad)
	switch c.Sampler {
	case "", CD, PersistentCD: // chains without temperatures
		if c.Temperatures != 0 || c.MinBeta != 0 {
			bad("temperatures = %d, min-beta = %v: only the pt sampler has temperatures", c.Temperatures, c.MinBeta)
		}
	case ParallelTempering:
		if c.Temperatures < 2 {
			bad("temperatures = %d: parallel tempering needs at least 2", c.Temperatures)
		}
		if finite("min-beta", c.MinBeta) && (c.MinBeta <= 0 || c.MinBeta >= 1) {
			bad("min-beta = %v: need 0 < β < 1", c.MinBeta)
		}
	default:
		bad("sampler %q is not one of %s", c.Sampler, names(Samplers()))
	}
	if finite("momentum", c.Momentum) && (c.Momentum < 0 || c.Momentum >= 1) {
		bad("momentum = %v: need 0 ≤ μ < 1", c.Momentum)
	}
	if finite("momentum-start", c.MomentumStart) && (c.MomentumStart < 0 || c.MomentumStart >= 1) {
		bad("momentum-start = %v: need 0 ≤ μ < 1", c.MomentumStart)
	}
	if c.MomentumEpochs < 0 {
		bad("momentum-epochs = %d is negative", c.MomentumEpochs)
	}
	if c.MomentumStart != 0 && c.MomentumEpochs == 0 {
		bad("momentum-start = %v needs momentum-epochs ≥ 1 (the epochs it lasts)", c.MomentumStart)
	}
	if finite("l2", c.L2) && c.L2 < 0 {
		bad("l2 = %v is negative", c.L2)
	}
	c.checkDecay(bad)
	if finite("l1", c.L1) && c.L1 < 0 {
		bad("l1 = %v is negative", c.L1)
	}
	linear, step := c.LRSchedule == Linear, c.LRSchedule == Step
	switch c.LRSchedule {
	case "", Constant, Linear, Step:
	default:
		bad("lr-schedule %q is not one of constant, linear, step", c.LRSchedule)
	}
	if linear {
		if finite("lr-final", c.LRFinal) && c.LRFinal < 0 {
			bad("lr-final = %v is negative", c.LRFinal)
		}
	} else if c.LRFinal != 0 {
		bad("lr-final = %v needs lr-schedule linear", c.LRFinal)
	}
	if step {
		if c.LRStepEvery < 1 {
			bad("lr-step-every = %d: the step schedule needs at least 1 epoch between steps", c.LRStepEvery)
		}
		if finite("lr-step-factor", c.LRStepFactor) && c.LRStepFactor <= 0 {
			bad("lr-step-factor = %v: need a factor > 0", c.LRStepFactor)
		}
	} else if c.LRStepEvery != 0 || c.LRStepFactor != 0 {
		bad("lr-step-every = %d, lr-step-factor = %v need lr-schedule step", c.LRStepEvery, c.LRStepFactor)
	}
}

// checkDecay refuses an L2 weight decay that makes the weights grow
// without bound by itself. With the gradient aside, a weight follows
// s ← μs − λ₂w, w ← w + αs: w_{t+1} = (1 + μ − αλ₂)·w_t − μ·w_{t−1}, whose
// roots lie inside the unit circle, for 0 ≤ μ < 1, exactly when
// 0 < αλ₂ < 2(1 + μ) (at αλ₂ = 2(1 + μ) a root is −1: the weights flip sign
// for ever). Each phase of momentum is checked with the largest α the
// schedule gives in it.
func (c Config) checkDecay(bad func(string, ...any)) {
	if !(c.L2 > 0) || c.Epochs < 1 || (c.LRSchedule == Step && (c.LRStepEvery < 1 || !(c.LRStepFactor > 0))) {
		return // nothing to check, or a schedule refused elsewhere
	}
	type phase struct {
		from, to int // epochs [from, to)
		mu       float64
	}
	start := min(max(c.MomentumEpochs, 0), c.Epochs)
	for _, p := range []phase{{0, start, c.MomentumStart}, {start, c.Epochs, c.Momentum}} {
		if p.from >= p.to {
			continue
		}
		lr := max(c.LRAt(p.from), c.LRAt(p.to-1)) // α is monotone in the epoch
		if lr*c.L2 >= 2*(1+p.mu) {
			bad("l2 = %v: with lr %v and momentum %v, weight decay alone makes the weights grow without bound (it needs lr·l2 < 2(1 + momentum) = %v)",
				c.L2, lr, p.mu, 2*(1+p.mu))
			return
		}
	}
}

// sampler is the effective sampler ("" is CD).
func (c Config) sampler() Sampler {
	if c.Sampler == "" {
		return CD
	}
	return c.Sampler
}

// chainsPerSlot is the number of persistent chains per minibatch slot: 0
// for CD, 1 for PCD, M for PT.
func (c Config) chainsPerSlot() int {
	switch c.sampler() {
	case PersistentCD:
		return 1
	case ParallelTempering:
		return c.Temperatures
	}
	return 0
}

// Betas returns PT's inverse temperatures, the geometric ladder
// β_m = MinBeta^(m/(M−1)), m = 0…M−1, from 1 down to MinBeta (nil for
// other samplers).
func (c Config) Betas() []float64 {
	if c.sampler() != ParallelTempering {
		return nil
	}
	m := c.Temperatures
	b := make([]float64, m)
	for i := range b {
		b[i] = math.Pow(c.MinBeta, float64(i)/float64(m-1))
	}
	b[0], b[m-1] = 1, c.MinBeta
	return b
}

// LRAt returns α in epoch e (0-based).
func (c Config) LRAt(e int) float64 {
	switch c.LRSchedule {
	case Linear:
		if c.Epochs <= 1 {
			return c.LR
		}
		f := float64(min(e, c.Epochs-1)) / float64(c.Epochs-1)
		return c.LR + (c.LRFinal-c.LR)*f
	case Step:
		return c.LR * math.Pow(c.LRStepFactor, float64(e/c.LRStepEvery))
	}
	return c.LR
}

// MomentumAt returns μ in epoch e (0-based).
func (c Config) MomentumAt(e int) float64 {
	if e < c.MomentumEpochs {
		return c.MomentumStart
	}
	return c.Momentum
}

// hasMomentum reports whether any epoch has momentum (the trainer then
// keeps velocities).
func (c Config) hasMomentum() bool { return c.Momentum != 0 || c.MomentumStart != 0 }

// plainUpdate reports whether the update is plain gradient ascent (no
// momentum, no decay): the fused kernels then apply it.
func (c Config) plainUpdate() bool { return !c.hasMomentum() && c.L1 == 0 && c.L2 == 0 }
