package engine

import "github.com/ncg-rbm/ncg/kernel"

// Centred joint training of a DBM (JointConfig.Centre), after Melchior,
// Fischer & Wiskott, "How to center deep Boltzmann machines" (JMLR
// 17(99), 2016), in the form the engine's centred RBM takes (centre.go):
// with offsets λ_l of every layer the centred energy is
//
//	E_c = −Σ_k (x_k − λ_k)ᵀ C_k (x_{k+1} − λ_{k+1}) − Σ_l (x_l − λ_l)ᵀ b̃_l,
//
// the ordinary DBM with the same C and biases b_l = b̃_l − C_l λ_{l+1} −
// C_{l−1}ᵀ λ_{l−1}. The model keeps the ordinary parameters and takes the
// centred model's step in them: with the summed gradients g_l of the
// biases and G_k of the weights (dbmgrad.go),
//
//	G_k^c = G_k − g_k λ_{k+1}ᵀ − λ_k g_{k+1}ᵀ
//	      (= Σ (μ^k − λ_k)(μ^{k+1} − λ_{k+1})ᵀ − (B/M) Σ (s^k − λ_k)(s^{k+1} − λ_{k+1})ᵀ),
//
// W steps along G^c (NCG's strength along G^c ⊙ W_old), each bias along
// g_l, and then the change ΔC_k of every matrix in the step moves the
// biases as the offsets require, b_k −= ΔC_k λ_{k+1} and b_{k+1} −=
// ΔC_kᵀ λ_k, so that the centred biases change by their own steps alone.
// The visible offsets are the data's mean, fixed; a hidden layer's start
// at ½ and follow the minibatch's mean of its mean field at rate
// HiddenOffsetRate after every step, which leaves the ordinary
// parameters as they are (the reparameterisation of Melchior et al.).

// dbmCentring is the state of a centred DBM's training.
type dbmCentring struct {
	lambda [][]float32 // per layer: its offsets
	// old holds each row chunk's rows of C before their update; lower,
	// per matrix, each row's ΔC_k[j,:]·λ_{k+1}; part, per row chunk,
	// λ_k[j]·ΔC_k[j,:] summed over its rows (n[k+1]).
	old, part [][]float32
	lower     [][]float32
	dot       []float32 // one float of scratch per row chunk
}

func (j *dbmJoint) allocCentre() {
	if !j.cfg.Centre {
		return
	}
	ct := &dbmCentring{lambda: make([][]float32, len(j.n)), lower: make([][]float32, len(j.rbms)),
		old: make([][]float32, len(j.chunks)), part: make([][]float32, len(j.chunks)), dot: make([]float32, len(j.chunks))}
	for l, n := range j.n {
		ct.lambda[l] = make([]float32, n)
		fill(ct.lambda[l], 0.5)
	}
	d, x := j.data, j.n[0]
	sum := make([]float64, x)
	for r := 0; r < d.N; r++ {
		for k, v := range d.X[r*x : (r+1)*x] {
			sum[k] += float64(v)
		}
	}
	for k, s := range sum {
		ct.lambda[0][k] = float32(s / float64(d.N))
	}
	for k := range j.rbms {
		ct.lower[k] = make([]float32, j.n[k])
	}
	for i, ch := range j.chunks {
		n := j.n[ch.k+1]
		ct.old[i], ct.part[i] = make([]float32, rowChunk*n), make([]float32, n)
	}
	j.ctr = ct
}

// centreRows turns row chunk i's summed gradient g (rows j0…j1−1 of
// matrix k) into G^c's and keeps the rows of C before the update.
func (j *dbmJoint) centreRows(i int, g []float32) {
	ct, ch := j.ctr, j.chunks[i]
	k, nout := ch.k, j.n[ch.k+1]
	for r := ch.j0; r < ch.j1; r++ {
		row := g[(r-ch.j0)*nout : (r-ch.j0+1)*nout]
		kernel.Axpy(row, -j.gb[k][r], ct.lambda[k+1])
		kernel.Axpy(row, -ct.lambda[k][r], j.gb[k+1])
	}
	copy(ct.old[i], j.rbms[k].c[ch.j0*nout:ch.j1*nout])
}

// centreShift takes row chunk i's shares of the biases' shifts from the
// change of its rows of C in the update.
func (j *dbmJoint) centreShift(i int) {
	ct, ch := j.ctr, j.chunks[i]
	k, nout := ch.k, j.n[ch.k+1]
	part := ct.part[i]
	clear(part)
	for r := ch.j0; r < ch.j1; r++ {
		neg := ct.old[i][(r-ch.j0)*nout : (r-ch.j0+1)*nout]
		kernel.Axpy(neg, -1, j.rbms[k].c[r*nout:(r+1)*nout]) // −ΔC
		ct.lower[k][r] = -dot(neg, ct.lambda[k+1], ct.dot[i:])
		kernel.Axpy(part, -ct.lambda[k][r], neg)
	}
}

// centreBiases shifts every bias by the changes of C (after the biases'
// steps), in a fixed order: the rows' shares, then the chunks' parts in
// chunk order; then the hidden offsets move towards the minibatch's mean
// field. It reports whether the biases are finite.
func (j *dbmJoint) centreBiases() bool {
	ct := j.ctr
	for k := range j.rbms {
		kernel.Axpy(j.bias[k], -1, ct.lower[k])
	}
	for i, ch := range j.chunks {
		kernel.Axpy(j.bias[ch.k+1], -1, ct.part[i])
	}
	ok := true
	for _, b := range j.bias {
		for _, v := range b {
			ok = ok && !isBad(v)
		}
	}
	for l := 1; l < len(j.n); l++ {
		n := j.n[l]
		for u := range ct.lambda[l] {
			var s float64
			for r := 0; r < j.nb; r++ {
				s += float64(j.mu[l][r*n+u])
			}
			ct.lambda[l][u] = float32((1-HiddenOffsetRate)*float64(ct.lambda[l][u]) + HiddenOffsetRate*s/float64(j.nb))
		}
	}
	return ok
}
