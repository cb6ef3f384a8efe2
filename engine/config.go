// Package engine trains binary RBMs with CD-k: dense, NCG (learned
// connectivity), line, random and SET models, with each minibatch's Gibbs
// chains spread over goroutines. A run is a pure function of its Config:
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
// their connections are the last rows. A fixed mask at most SparseDensity
// dense (SET's paper setting) also keeps C as compressed rows in both
// orientations and sums only the present connections.
package engine

import (
	"errors"
	"fmt"
	"math"
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

// Config is every setting of a training run. The zero value is not valid;
// start from DefaultConfig.
type Config struct {
	Method Method `json:"method"`
	Hidden int    `json:"hidden"` // H

	K      int     `json:"k"`       // CD-k Gibbs steps
	Batch  int     `json:"batch"`   // minibatch size
	LR     float64 `json:"lr"`      // α, weights and biases
	LRConn float64 `json:"lr_conn"` // α_A, connection strength (NCG)
	Gamma  float64 `json:"gamma"`   // γ, threshold on A′ (NCG)
	Epochs int     `json:"epochs"`
	Seed   uint64  `json:"seed"`

	P       float64 `json:"p,omitempty"`       // NCG initial density
	V       int     `json:"v,omitempty"`       // line width (visible units per hidden unit)
	Density float64 `json:"density,omitempty"` // random density
	Epsilon float64 `json:"epsilon,omitempty"` // SET ε
	Zeta    float64 `json:"zeta,omitempty"`    // SET ζ

	Init      string  `json:"init"`       // uniform | normal | zero
	InitScale float64 `json:"init_scale"` // a of U(−a, a), or σ of N(0, σ²)

	PCD bool `json:"pcd,omitempty"` // persistent chains instead of CD

	// Workers is the number of goroutines a run uses (0: GOMAXPROCS). It
	// changes the speed, never the result, and is not part of the run's
	// identity.
	Workers int `json:"-"`
}

// DefaultConfig returns the paper's MNIST settings for NCG (the paper's section 5).
func DefaultConfig() Config {
	return Config{
		Method: NCG, Hidden: 500, K: 10, Batch: 50, LR: 0.1, LRConn: 0.5, Gamma: 0.5,
		Epochs: 10, Seed: 1, P: 0.5, V: 392, Density: 0.5, Epsilon: 11, Zeta: 0.3,
		Init: "uniform", InitScale: 1,
	}
}

// Validate checks every setting against a data width of visible data units
// (label units excluded); visible ≤ 0 skips the width-dependent checks.
func (c Config) Validate(visible int) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	finite := func(name string, v float64) bool {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			bad("%s = %v is not a finite number", name, v)
			return false
		}
		return true
	}
	switch c.Method {
	case Dense, NCG, Line, Random, SET:
	default:
		bad("method %q is not one of dense, ncg, line, random, set", c.Method)
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
	if c.Method == Line && visible > 0 && (c.V < 1 || c.V > visible) {
		bad("v = %d: need 1 ≤ v ≤ %d (the number of visible data units)", c.V, visible)
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
	case "uniform", "normal":
		if finite("init-scale", c.InitScale) && c.InitScale < 0 {
			bad("init-scale = %v is negative", c.InitScale)
		}
	case "zero":
	default:
		bad("init %q is not one of uniform, normal, zero", c.Init)
	}
	if c.Workers < 0 {
		bad("workers = %d is negative", c.Workers)
	}
	return errors.Join(errs...)
}

// Data is a binary training set as the engine consumes it: N rows of D
// bytes (0 or 1), and optional labels in 0..Classes−1. With Classes > 0
// the model gets one visible unit per class after the D data units
// (classification mode), set one-hot from the label.
type Data struct {
	N, D    int
	X       []uint8 // N×D row-major
	Labels  []int32 // N labels, or nil
	Classes int     // label units (0: generative mode)
}

// Validate checks the shape and values of d; the error names the row.
func (d *Data) Validate() error {
	if d.N <= 0 || d.D <= 0 {
		return fmt.Errorf("data: %d rows of %d units: need at least one of each", d.N, d.D)
	}
	if len(d.X) != d.N*d.D {
		return fmt.Errorf("data: %d bytes for %d rows of %d units", len(d.X), d.N, d.D)
	}
	for i, v := range d.X {
		if v > 1 {
			return fmt.Errorf("data: row %d, unit %d has value %d, want 0 or 1", i/d.D, i%d.D, v)
		}
	}
	if d.Classes < 0 {
		return fmt.Errorf("data: %d classes", d.Classes)
	}
	if d.Classes > 0 {
		if len(d.Labels) != d.N {
			return fmt.Errorf("data: %d labels for %d rows", len(d.Labels), d.N)
		}
		for i, l := range d.Labels {
			if l < 0 || int(l) >= d.Classes {
				return fmt.Errorf("data: row %d has label %d, want 0..%d", i, l, d.Classes-1)
			}
		}
	}
	return nil
}
