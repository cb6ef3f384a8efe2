package engine

import "github.com/ncg-rbm/ncg/kernel"

// The update when momentum or weight decay is on (Config.plainUpdate
// false) is kernel.UpdateMomentum and kernel.UpdateMomentumNCG (on
// compressed rows, UpdateMomentum on the row's present connections): per
// weight, in float32 with every product rounded,
//
//	s  = g·(1/B) − l2·w − l1·sign(w) + mu·v    the mean gradient less the decay, plus momentum
//	w += lr·s·a                                 a: the mask (all ones for a dense row)
//	v  = s·a                                    an absent connection keeps no velocity
//	c  = w·a, g = 0
//
// and for NCG the connection strength follows the plain summed gradient
// and the weight before the step, as without momentum, and sets the mask
// after the step:
//
//	A′ = min(max(A′ + lrA·g·w_old, 0), 1),  a = [A′ ≥ γ],  c = w·a

// params returns the update's coefficients for the current minibatch.
func (t *Trainer) params() kernel.Step {
	cfg := t.cfg
	return kernel.Step{LR: float32(cfg.LRAt(t.epoch)), InvB: 1 / float32(t.nb), Mu: float32(cfg.MomentumAt(t.epoch)),
		L2: float32(cfg.L2), L1: float32(cfg.L1), LRA: float32(cfg.LRConn / float64(t.nb)), Gamma: float32(cfg.Gamma)}
}
