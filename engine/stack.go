package engine

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/ncg-rbm/ncg/unit"
)

// Deep models: a stack of RBMs, one per weight matrix, trained as a deep
// belief network or a deep Boltzmann machine (docs/algorithm.md, "Deep
// models"). Layer 0 is the visible layer; RBM l joins layer l and layer
// l+1, so a stack of L RBMs has L hidden layers. Every matrix has its own
// connectivity method and NCG settings, in pre-training and in a DBM's
// joint training alike.

// StackKind names how a stack of RBMs forms a deep model.
type StackKind string

// The deep models.
const (
	// DBN is a deep belief network (Hinton, Osindero & Teh 2006): each
	// RBM trained greedily on the layer below's hidden states; the top
	// RBM is the model's undirected top, the ones below it give the
	// directed p(layer l | layer l+1).
	DBN StackKind = "dbn"
	// DBM is a deep Boltzmann machine (Salakhutdinov & Hinton 2009,
	// 2012): the RBMs pre-trained with doubled inputs, then trained
	// jointly with a mean-field positive phase and persistent chains.
	DBM StackKind = "dbm"
)

// StackKinds returns the deep models, in the order help and reports list
// them.
func StackKinds() []StackKind { return []StackKind{DBN, DBM} }

// StackConfig is every setting of a deep model's training.
type StackConfig struct {
	Kind StackKind `json:"kind"`
	// Layers[l] is RBM l: its Hidden is the size of layer l+1, its Method
	// and connectivity settings (P, Gamma, LRConn, Density, LineWidth,
	// Epsilon, Zeta) those of matrix l in pre-training and, for a DBM,
	// in joint training; its other settings (K, Batch, LR, Epochs,
	// sampler, momentum, …) train it as an RBM in pre-training. Layers[0]
	// has the visible unit type; the layers above are binary. Each RBM's
	// Seed and Workers are the stack's (its Seed is ignored).
	Layers []Config `json:"layers"`
	Seed   uint64   `json:"seed"`
	// Joint is a DBM's joint training (ignored for a DBN).
	Joint JointConfig `json:"joint,omitzero"`
	// Workers is the number of goroutines (0: GOMAXPROCS); it never
	// changes the result.
	Workers int `json:"-"`
}

// JointConfig is a DBM's joint training after pre-training
// (Salakhutdinov & Hinton 2009): per update, a minibatch's positive
// statistics from mean field and the negative statistics from persistent
// Gibbs chains.
type JointConfig struct {
	Epochs int `json:"epochs"`
	Batch  int `json:"batch"` // data rows per update
	// Chains is the number of persistent chains (0: Batch).
	Chains int `json:"chains,omitempty"`
	// MeanField is the number of fixed-point iterations of the positive
	// phase, after the bottom-up pass that starts it.
	MeanField int `json:"mean_field"`
	// Gibbs is the number of Gibbs sweeps of every chain per update, a
	// sweep drawing the odd layers given the even, then the even given
	// the odd.
	Gibbs int     `json:"gibbs"`
	LR    float64 `json:"lr"` // α of the weights and biases
	// Momentum μ of the weights and biases (0: none); never of A′.
	Momentum float64 `json:"momentum,omitempty"`
	// L2 weight decay of W (not of the biases or A′).
	L2 float64 `json:"l2,omitempty"`
	// Centre trains the DBM centred (Melchior, Fischer & Wiskott 2016):
	// every layer offset by a running mean of its mean-field activities.
	Centre bool `json:"centre,omitempty"`
}

// DefaultJoint returns the joint training settings of ncgbench's DBM:
// 100 rows and 100 chains per update, 10 mean-field iterations and 1
// Gibbs sweep, as in Salakhutdinov & Hinton's MNIST DBM (AISTATS 2009),
// with α = 0.001.
func DefaultJoint() JointConfig {
	return JointConfig{Epochs: 10, Batch: 100, MeanField: 10, Gibbs: 1, LR: 0.001}
}

// workers returns the number of goroutines (Workers, or GOMAXPROCS).
func (c StackConfig) workers() int {
	if c.Workers > 0 {
		return c.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// chains returns the number of persistent chains.
func (j JointConfig) chains() int {
	if j.Chains > 0 {
		return j.Chains
	}
	return j.Batch
}

// MaxStackLayers is the most RBMs a stack may have.
const MaxStackLayers = 8

// Validate checks every setting against a data width of visible data
// units (visible ≤ 0 skips the width-dependent checks): each RBM's as
// Config.Validate checks it, with its own number of visible units, and
// what a stack needs beyond that. The errors name the layer.
func (c StackConfig) Validate(visible int) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	switch c.Kind {
	case DBN, DBM:
	default:
		bad("model %q is not one of %s", c.Kind, names(StackKinds()))
	}
	switch n := len(c.Layers); {
	case n == 0:
		bad("hidden: a deep model needs at least 1 hidden layer")
	case n > MaxStackLayers:
		bad("hidden: %d layers, at most %d", n, MaxStackLayers)
	}
	below := visible
	for l, lc := range c.Layers {
		if l > 0 && lc.Visible != unit.Binary {
			bad("layer %d: hidden layers are binary; only layer 1 takes %s visible units", l+1, lc.Visible)
		}
		if c.Kind == DBM && lc.sampler() == ParallelTempering {
			bad("layer %d: a DBM's pre-training doubles inputs, which parallel tempering does not take; use cd or pcd", l+1)
		}
		if c.Kind == DBM && lc.SETProcedure == Mocanu {
			bad("layer %d: set-procedure %s does not double inputs, as a DBM's pre-training needs", l+1, Mocanu)
		}
		if lc.DoubleUp || lc.DoubleDown {
			bad("layer %d: double-up and double-down are set by the stack, not given", l+1)
		}
		if err := lc.Validate(below); err != nil {
			bad("layer %d: %w", l+1, err)
		}
		below = lc.Hidden
	}
	if c.Workers < 0 {
		bad("workers = %d is negative", c.Workers)
	}
	if c.Kind == DBM {
		c.Joint.validate(bad)
		if len(c.Layers) > 0 && c.Layers[0].Visible == unit.Gaussian && c.Joint.Centre {
			bad("joint-centre: a DBM is centred on binary or categorical visible units, not Gaussian ones")
		}
	}
	return errors.Join(errs...)
}

func (j JointConfig) validate(bad func(string, ...any)) {
	if j.Epochs < 0 {
		bad("joint-epochs = %d is negative", j.Epochs)
	}
	if j.Batch < 1 {
		bad("joint-batch = %d: need at least 1", j.Batch)
	}
	if j.Chains < 0 {
		bad("chains = %d is negative", j.Chains)
	}
	if j.MeanField < 1 {
		bad("mean-field = %d: need at least 1 iteration", j.MeanField)
	}
	if j.Gibbs < 1 {
		bad("gibbs = %d: need at least 1 sweep", j.Gibbs)
	}
	for _, p := range []struct {
		name string
		v    float64
		hi   float64 // exclusive upper bound, or 0 for none
	}{{"joint-lr", j.LR, 0}, {"joint-momentum", j.Momentum, 1}, {"joint-l2", j.L2, 0}} {
		switch {
		case math.IsNaN(p.v) || math.IsInf(p.v, 0) || math.Abs(p.v) > math.MaxFloat32:
			bad("%s = %v is not a finite float32", p.name, p.v)
		case p.v < 0:
			bad("%s = %v is negative", p.name, p.v)
		case p.hi > 0 && p.v >= p.hi:
			bad("%s = %v: need 0 ≤ μ < 1", p.name, p.v)
		}
	}
	if j.L2 > 0 && j.LR*j.L2 >= 2*(1+j.Momentum) {
		bad("joint-l2 = %v: with joint-lr %v, weight decay alone makes the weights grow without bound", j.L2, j.LR)
	}
}

// Sizes returns the units of every layer, visible first, for visible
// visible units.
func (c StackConfig) Sizes(visible int) []int {
	s := []int{visible}
	for _, l := range c.Layers {
		s = append(s, l.Hidden)
	}
	return s
}
