package kernel

// UpdateNCG applies the fused NCG step (docs/algorithm.md, "One minibatch") to every element k, in one
// pass, and clears the gradient for the next minibatch:
//
//	w0 := w[k]
//	w[k]  = w0 + alpha*g[k]*a[k]                  (inactive weights are frozen)
//	ap[k] = min(max(ap[k] + alphaA*g[k]*w0, 0), 1)
//	a[k]  = 1 if ap[k] >= gamma else 0
//	c[k]  = w[k]*a[k]
//	g[k]  = 0
//
// g holds the minibatch's summed gradient, so alpha and alphaA are the
// learning rates divided by the batch size. It reports false if any new
// weight is NaN or ±Inf (which a NaN or Inf in g or w causes).
func UpdateNCG(w, ap, a, c, g []float32, alpha, alphaA, gamma float32) (finite bool) {
	n := len(w)
	need("ap", len(ap), n)
	need("a", len(a), n)
	need("c", len(c), n)
	need("g", len(g), n)
	if n == 0 {
		return true
	}
	return cur.updateNCG(w, ap[:n], a[:n], c[:n], g[:n], alpha, alphaA, gamma) == 0
}

// UpdateMasked is the update of a model with a fixed mask (line, random, SET
// between rewirings):
//
//	w[k] += alpha*g[k]*a[k]; c[k] = w[k]*a[k]; g[k] = 0
//
// It reports false if any new weight is not finite.
func UpdateMasked(w, a, c, g []float32, alpha float32) (finite bool) {
	n := len(w)
	need("a", len(a), n)
	need("c", len(c), n)
	need("g", len(g), n)
	if n == 0 {
		return true
	}
	return cur.updateMasked(w, a[:n], c[:n], g[:n], alpha) == 0
}

// UpdateDense is the update of a dense model, and of biases (c = nil):
//
//	w[k] += alpha*g[k]; c[k] = w[k] (if c != nil); g[k] = 0
//
// It reports false if any new weight is not finite.
func UpdateDense(w, c, g []float32, alpha float32) (finite bool) {
	n := len(w)
	if c != nil {
		need("c", len(c), n)
		c = c[:n]
	}
	need("g", len(g), n)
	if n == 0 {
		return true
	}
	return cur.updateDense(w, c, g[:n], alpha) == 0
}

// Step holds the coefficients of the update with momentum and weight decay
// (UpdateMomentum, UpdateMomentumNCG).
type Step struct {
	LR    float32 // α: the learning rate of the weights
	InvB  float32 // 1/B: g holds the minibatch's summed gradient
	Mu    float32 // μ: the momentum (0: none)
	L2    float32 // L2 weight decay (0: none)
	L1    float32 // L1 weight decay (0: none)
	LRA   float32 // NCG: α_A/B, the rate of the connection strengths
	Gamma float32 // NCG: γ, the threshold of a connection
}

// UpdateMomentum is the update with momentum and weight decay of a row of
// W, or of a bias vector, with mask a (nil: all ones). For every k, in
// float32 with every product rounded on its own (no fused multiply-add, on
// every tier) and the sums taken left to right:
//
//	w0 := w[k]
//	s  := g[k]·InvB − L2·w0 − L1·sign(w0) + Mu·v[k]   the step, before the mask
//	w[k] = w0 + (LR·s)·a[k]                           an absent weight stays
//	v[k] = s·a[k]                                     and keeps no velocity
//	c[k] = w[k]·a[k] (c nil: not written), g[k] = 0
//
// sign(x) is −1, 0 or 1 (0 for ±0 and NaN). Every tier gives the generic
// code's bits. With Mu = L2 = L1 = 0 this is the plain step computed
// unfused, which can differ in the last bit from UpdateMasked on the tiers
// that fuse that one. It reports false if any new weight is NaN or ±Inf.
// LRA and Gamma are not used.
func UpdateMomentum(w, a, c, g, v []float32, p Step) (finite bool) {
	n := len(w)
	if a != nil {
		need("a", len(a), n)
		a = a[:n]
	}
	if c != nil {
		need("c", len(c), n)
		c = c[:n]
	}
	need("g", len(g), n)
	need("v", len(v), n)
	if n == 0 {
		return true
	}
	return cur.updateMom(w, a, c, g[:n], v[:n], p) == 0
}

// UpdateMomentumNCG is UpdateMomentum for NCG, whose connection strengths
// ap follow the summed gradient and the weight before the step, and set
// the mask after it. For every k, with s, w[k] and v[k] as in
// UpdateMomentum (from the mask a[k] before the step):
//
//	q := ap[k] + (LRA·g[k])·w0;  if q < 0 { q = 0 };  if q > 1 { q = 1 }
//	ap[k] = q;  a[k] = 1 if q >= Gamma else 0;  c[k] = w[k]·a[k]
//
// A NaN q stays NaN and gives a[k] = 0. It reports false if any new weight
// is NaN or ±Inf.
func UpdateMomentumNCG(w, ap, a, c, g, v []float32, p Step) (finite bool) {
	n := len(w)
	need("ap", len(ap), n)
	need("a", len(a), n)
	need("c", len(c), n)
	need("g", len(g), n)
	need("v", len(v), n)
	if n == 0 {
		return true
	}
	return cur.updateMomNCG(w, ap[:n], a[:n], c[:n], g[:n], v[:n], p) == 0
}
