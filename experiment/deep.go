package experiment

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/unit"
)

// RBM is -model's name of a run without a stack: a Spec stores it as ""
// (Normalize), so that an RBM's identity has no "deep" part.
const RBM engine.StackKind = "rbm"

// ModelKinds returns -model's values, in the order help and reports list
// them.
func ModelKinds() []engine.StackKind {
	return append([]engine.StackKind{RBM}, engine.StackKinds()...)
}

// Deep is a deep model's part of a Spec (docs/algorithm.md, "Deep
// models"): a stack of RBMs whose bottom one has Engine's hidden units and
// method, the layers above it those given here, and every RBM Engine's
// other settings in pre-training. The zero value is an RBM's: a Spec
// without a stack has no "deep" part in its JSON, so an RBM's identity is
// the same as before stacks existed.
type Deep struct {
	// Kind is engine.DBN or engine.DBM ("" for an RBM).
	Kind engine.StackKind `json:"kind,omitempty"`
	// Hidden are the units of hidden layers 2, 3, … (layer 1's are
	// Engine.Hidden): -hidden's values after its first.
	Hidden []int `json:"hidden,omitempty"`
	// Methods are the methods of weight matrices 2, 3, … (matrix 1's is
	// Engine.Method), one for each of Hidden; nil when every matrix has
	// Engine.Method (Normalize's one spelling).
	Methods []engine.Method `json:"methods,omitempty"`
	// Joint is a DBM's joint training. Its Centre is not a setting of its
	// own: Stack takes it from Engine.Centre (-centre), and Normalize
	// clears it.
	Joint engine.JointConfig `json:"joint,omitzero"`
}

// IsDeep reports whether the Spec is a deep model's (-model dbn or dbm).
func (s Spec) IsDeep() bool { return s.Deep.Kind == engine.DBN || s.Deep.Kind == engine.DBM }

// Methods returns the connectivity method of every weight matrix, the
// bottom one first: one for an RBM.
func (s Spec) Methods() []engine.Method {
	out := []engine.Method{s.Engine.Method}
	for l := range s.Deep.Hidden {
		m := s.Engine.Method
		if l < len(s.Deep.Methods) {
			m = s.Deep.Methods[l]
		}
		out = append(out, m)
	}
	return out
}

// Stack returns the engine's configuration of a deep model's training:
// RBM l pre-trained with Engine's settings, its own hidden units and
// method, binary visible units above the bottom one, and the run's seed;
// a DBM's joint training with -centre. It is the one place a Spec becomes
// a stack; the Spec is a deep model's (IsDeep) and valid.
func (s Spec) Stack() engine.StackConfig {
	methods := s.Methods()
	layers := make([]engine.Config, len(methods))
	for l := range layers {
		c := s.Engine
		c.Seed, c.Workers = 0, 0 // the stack's
		if l > 0 {
			c.Hidden, c.Method = s.Deep.Hidden[l-1], methods[l]
			c.Visible, c.LearnSigma, c.SigmaStep, c.MinSigma = unit.Binary, false, 0, 0
		}
		layers[l] = c
	}
	cfg := engine.StackConfig{Kind: s.Deep.Kind, Layers: layers, Seed: s.Engine.Seed}
	if s.Deep.Kind == engine.DBM {
		cfg.Joint = s.Deep.Joint
		cfg.Joint.Centre = s.Engine.Centre
	}
	return cfg
}

// TotalEpochs is the number of epochs a run trains: an RBM's -epochs; a
// deep model's -epochs for each RBM's pre-training in turn, then a DBM's
// -joint-epochs. A run's metrics count its epochs in that order.
func (s Spec) TotalEpochs() int {
	if !s.IsDeep() {
		return s.Engine.Epochs
	}
	n := (1 + len(s.Deep.Hidden)) * s.Engine.Epochs
	if s.Deep.Kind == engine.DBM {
		n += s.Deep.Joint.Epochs
	}
	return n
}

// epochOf is the run's epoch (1-based, counted as TotalEpochs counts them)
// of epoch e (1-based within its phase) of the RBM layer in pre-training
// (1-based), or of joint training (layer 0).
func (s Spec) epochOf(layer, e int) int {
	if layer == 0 {
		return (1+len(s.Deep.Hidden))*s.Engine.Epochs + e
	}
	return (layer-1)*s.Engine.Epochs + e
}

// layerOf is the inverse of epochOf's phase: the RBM in pre-training at
// the run's epoch n (1-based), or 0 in joint training; 0 for an RBM.
func (s Spec) layerOf(n int) int {
	if !s.IsDeep() || s.Engine.Epochs < 1 {
		return 0
	}
	if l := (n-1)/s.Engine.Epochs + 1; l <= 1+len(s.Deep.Hidden) {
		return l
	}
	return 0
}

// normalizeDeep is Normalize's part for the stack: -model in one spelling
// (rbm as ""), the methods in one (nil when every matrix has the bottom
// one's), and no joint centring of its own.
func (s *Spec) normalizeDeep() {
	if s.Deep.Kind == RBM {
		s.Deep.Kind = ""
	}
	if !slices.ContainsFunc(s.Deep.Methods, func(m engine.Method) bool { return m != s.Engine.Method }) {
		s.Deep.Methods = nil
	}
	s.Deep.Joint.Centre = false
}

// validateDeep checks the stack's settings: for an RBM that none is
// given, for a deep model each RBM's (engine.StackConfig.Validate, the
// layer named) and what a stack cannot take. It stands in for
// Engine.Validate, to which a deep model's errors would name no layer.
func (s Spec) validateDeep(visible int) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	hidden, method := lookup("hidden"), lookup("method")
	switch k := s.Deep.Kind; {
	case k == "" || k == RBM:
		if len(s.Deep.Hidden) > 0 {
			bad("hidden = %s: an RBM has one hidden layer; a list of layers needs -model dbn or dbm", hidden.Value(s))
		}
		if len(s.Deep.Methods) > 0 {
			bad("method = %s: an RBM has one weight matrix; a method per matrix needs -model dbn or dbm", method.Value(s))
		}
		if err := s.Engine.Validate(visible); err != nil {
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	case !s.IsDeep():
		bad("model %q is not one of %s", k, names(ModelKinds()))
		return errors.Join(errs...)
	}
	if n := len(s.Deep.Hidden) + 1; n > engine.MaxStackLayers { // refused before Stack makes a Config per layer
		bad("hidden: %d layers, at most %d", n, engine.MaxStackLayers)
		return errors.Join(errs...)
	}
	if n, m := len(s.Deep.Hidden)+1, len(s.Deep.Methods); m > 0 && m != n-1 {
		bad("method = %s: %d methods for %d weight matrices; give one method for all, or one for each matrix", method.Value(s), m+1, n)
		return errors.Join(errs...)
	}
	if s.Classify {
		bad("classify: a deep model is generative, without label units; classification needs -model rbm")
	}
	if s.AISMaxIntervals != 0 {
		bad("ais-max-betas: it grows the AIS schedule while the checks' verdict fires; a deep model's AIS has no checks")
	}
	if s.Deep.Kind == engine.DBM && s.Engine.Centre && s.Engine.Visible == unit.Gaussian {
		bad("centre: a DBM is centred on binary or categorical visible units, not Gaussian ones")
	} else if err := s.Stack().Validate(visible); err != nil {
		errs = append(errs, err)
	} else if visible > 0 {
		if err := checkStackExact(s.Likelihood, s.Deep.Kind, s.Engine.Visible, s.Stack().Sizes(visible)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// deep reports whether a run is a deep model's, for the settings only
// they use.
func deep(s Spec) bool { return s.IsDeep() }

// dbm reports whether a run is a DBM's, for joint training's settings.
func dbm(s Spec) bool { return s.Deep.Kind == engine.DBM }

// stackMemory are the arrays of a deep model's run on d: every RBM's in
// its pre-training (engine.MemoryParts, with its own visible units), the
// sampled data of the layers above the visible one (a byte per unit and
// row), and a DBM's chains and minibatch in joint training (a state, a
// mean and a scratch value per unit of every layer, in float32).
func (s Spec) stackMemory(d *engine.Data) []MemoryPart {
	cfg := s.Stack()
	sizes := cfg.Sizes(d.D)
	var parts []MemoryPart
	units := 0.0
	for l := range cfg.Layers {
		for _, p := range engine.MemoryParts(cfg.LayerConfig(l), sizes[l]) {
			parts = append(parts, MemoryPart(p))
		}
		units += float64(sizes[l+1])
		if l > 0 {
			parts = append(parts, MemoryPart{Setting: "hidden", Value: sizes[l], Bytes: float64(d.N) * float64(sizes[l]),
				What: fmt.Sprintf("the sampled data of hidden layer %d (rows × units)", l)})
		}
	}
	if s.Deep.Kind == engine.DBM {
		j := cfg.Joint
		units += float64(d.D)
		chains := MemoryPart{Setting: "chains", Value: j.Chains, What: "the persistent chains of joint training (chains × units of every layer)"}
		if j.Chains == 0 {
			chains.Setting, chains.Value = "joint-batch", j.Batch
		}
		chains.Bytes = 3 * 4 * float64(max(j.Chains, j.Batch)) * units
		parts = append(parts, chains,
			MemoryPart{Setting: "joint-batch", Value: j.Batch, Bytes: 3 * 4 * float64(j.Batch) * units, What: "the mean field of joint training's minibatch (rows × units of every layer)"})
	}
	return parts
}
