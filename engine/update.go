package engine

// stepParams are the coefficients of one minibatch's update when momentum
// or weight decay is on (Config.plainUpdate false).
type stepParams struct {
	lr, invB float32 // α of this epoch, 1/B
	mu       float32 // μ of this epoch (0 without momentum)
	l2, l1   float32 // decay of W (0 for the biases)
	lrA      float32 // NCG: α_A/B, for the summed gradient
	gamma    float32 // NCG: γ
}

// updateRow is the update of one row of W, or of a bias vector, when
// momentum or weight decay is on. In float32, every product rounded:
//
//	s  = g·(1/B) − l2·w − l1·sign(w)    the mean gradient less the decay
//	v  = mu·v + s                       v: the velocity (mu = 0: v = s)
//	w += lr·v·a                         a: the mask (all ones for a dense row)
//	v  = v·a                            an absent connection keeps no velocity
//	c  = w·a (c nil: none), g = 0
//
// For NCG (ap not nil) the connection strength follows the plain summed
// gradient and the weight before the step, as without momentum, and sets
// the mask after the step:
//
//	A′ = min(max(A′ + lrA·g·w_old, 0), 1),  a = [A′ ≥ γ],  c = w·a
//
// It reports whether every new weight is finite. The fused kernels apply
// the plain update instead; this one is Go only (BenchmarkUpdate).
func updateRow(w, ap, a, c, g, v []float32, p stepParams) bool {
	if ap != nil {
		return updateRowNCG(w, ap, a, c, g, v, p)
	}
	n := len(w)
	a, g, v = a[:n], g[:n], v[:n]
	var bad float32
	for k, w0 := range w {
		nw, nv := p.step(w0, g[k], v[k], a[k])
		v[k], w[k], g[k] = nv, nw, 0
		bad += nw * 0
	}
	if c != nil {
		c = c[:n]
		for k, nw := range w {
			c[k] = nw * a[k]
		}
	}
	return bad == 0
}

// step is one weight's update (see updateRow): the new weight and
// velocity from the weight w0, its summed gradient g, velocity v and mask a.
func (p stepParams) step(w0, g, v, a float32) (nw, nv float32) {
	s := float32(g*p.invB) - float32(p.l2*w0) - float32(p.l1*sign(w0)) + float32(p.mu*v)
	return w0 + float32(float32(p.lr*s)*a), s * a
}

func updateRowNCG(w, ap, a, c, g, v []float32, p stepParams) bool {
	n := len(w)
	ap, a, c, g, v = ap[:n], a[:n], c[:n], g[:n], v[:n]
	var bad float32
	for k, w0 := range w {
		gk := g[k]
		nw, nv := p.step(w0, gk, v[k], a[k])
		v[k] = nv
		q := ap[k] + float32(float32(p.lrA*gk)*w0)
		if q < 0 { // rare branches: A′ mostly stays inside [0, 1]
			q = 0
		}
		if q > 1 {
			q = 1
		}
		na := b2f(q >= p.gamma)
		ap[k], a[k], c[k], w[k], g[k] = q, na, nw*na, nw, 0
		bad += nw * 0
	}
	return bad == 0
}

// sign is −1, 0 or 1 (0 for ±0 and NaN).
func sign(x float32) float32 { return float32(int32(b2u(x > 0)) - int32(b2u(x < 0))) }

// b2f is 1 or 0, without a branch (as b2u).
func b2f(b bool) float32 { return float32(b2u(b)) }

// b2u is 1 or 0; the compiler turns it into a conditional set, not a
// branch, which a mask bit or a weight's sign would mispredict half the time.
func b2u(b bool) uint32 {
	var u uint32
	if b {
		u = 1
	}
	return u
}

// params returns the update's coefficients for the current minibatch.
func (t *Trainer) params() stepParams {
	cfg := t.cfg
	return stepParams{lr: float32(cfg.LRAt(t.epoch)), invB: 1 / float32(t.nb), mu: float32(cfg.MomentumAt(t.epoch)),
		l2: float32(cfg.L2), l1: float32(cfg.L1), lrA: float32(cfg.LRConn / float64(t.nb)), gamma: float32(cfg.Gamma)}
}
