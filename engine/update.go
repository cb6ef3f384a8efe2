package engine

import "math"

// stepParams are the coefficients of one minibatch's update when momentum
// or weight decay is on (Config.plainUpdate false).
type stepParams struct {
	lr, invB float32 // α of this epoch, 1/B
	mu       float32 // μ of this epoch
	l2, l1   float32 // decay of W (0 for the biases)
	lrA      float32 // NCG: α_A/B, for the summed gradient
	gamma    float32 // NCG: γ
}

// updateRow is the update of one row of W, or of a bias vector, when
// momentum or weight decay is on. In float32, every product rounded:
//
//	s  = g·(1/B) − l2·w − l1·sign(w)    the mean gradient less the decay
//	v  = mu·v + s                       (v nil, no momentum: v = s)
//	w += lr·v·a                         (a nil: a dense row, a = 1)
//	v  = v·a                            an absent connection keeps no velocity
//
// For NCG (ap not nil) the connection strength follows the plain summed
// gradient and the weight before the step, as without momentum:
//
//	A′ = min(max(A′ + lrA·g·w_old, 0), 1),  a = [A′ ≥ γ]
//
// then c = w·a (c nil: none) and g = 0. It reports whether every new weight
// is finite. The fused kernels apply the plain update instead; this one is
// Go only (its cost is small beside the Gibbs chains).
func updateRow(w, ap, a, c, g, v []float32, p stepParams) bool {
	var bad float32
	for k := range w {
		w0, gk := w[k], g[k]
		s := float32(gk*p.invB) - float32(p.l2*w0)
		if p.l1 != 0 && w0 != 0 {
			s -= float32(math.Copysign(float64(p.l1), float64(w0)))
		}
		if v != nil {
			s += float32(p.mu * v[k])
		}
		mask := float32(1)
		if a != nil {
			mask = a[k]
		}
		nw := w0 + float32(float32(p.lr*s)*mask)
		if v != nil {
			v[k] = s * mask
		}
		if ap != nil {
			q := ap[k] + float32(float32(p.lrA*gk)*w0)
			q = min(max(q, 0), 1)
			var na float32
			if q >= p.gamma {
				na = 1
			}
			ap[k], a[k] = q, na
			mask = na
		}
		w[k], g[k] = nw, 0
		if c != nil {
			c[k] = nw * mask
		}
		bad += nw * 0
	}
	return bad == 0
}

// params returns the update's coefficients for the current minibatch.
func (t *Trainer) params() stepParams {
	cfg := t.cfg
	return stepParams{lr: float32(cfg.LRAt(t.epoch)), invB: 1 / float32(t.nb), mu: float32(cfg.MomentumAt(t.epoch)),
		l2: float32(cfg.L2), l1: float32(cfg.L1), lrA: float32(cfg.LRConn / float64(t.nb)), gamma: float32(cfg.Gamma)}
}
