package engine

import (
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/kernel"
)

// blockSize is the number of chains a task advances together on the dense
// matrices, so that the tiles of C read for one chain are reused by the
// others from cache. It is fixed, not derived from the number of workers,
// because a block's density picks the product's form, and results must
// not depend on the workers. Compressed rows use sparseBlock instead.
const blockSize = 8

// sparseBlock is the number of chains a task advances together on
// compressed rows: the minibatch split evenly over the workers, rounded up
// to a lane count of kernel.SparseAffine (8, 16 or 32), whose cost per
// connection is mostly shared by the lanes. Each lane's sums are the same
// whatever its block, so results do not depend on the workers here.
func sparseBlock(batch, workers int) int {
	return kernel.SparseLanes((batch + workers - 1) / max(workers, 1))
}

// rowChunk is the number of visible rows of the gradient and update a task
// handles (rows are independent in both).
const rowChunk = 16

// biasChunk is the number of hidden biases a task sums and updates.
const biasChunk = 64

// minibatch runs CD-k on the given samples and updates the parameters.
func (t *Trainer) minibatch(rows []int32) (float64, error) {
	m := t.m
	x := m.X
	t.nb, t.rows = len(rows), rows
	t.alpha = float32(t.cfg.LRAt(t.epoch) / float64(t.nb))
	if !t.cfg.plainUpdate() {
		t.step = t.params()
	}
	if len(m.cp) != x*m.cpStride() {
		m.padC(0, x) // before the workers update its rows
	}
	if t.sp != nil {
		t.spDirty = true // the updates write the compressed rows only
		if t.xsT != nil && t.nb < t.cfg.Batch {
			// A short minibatch: its missing slots weigh nothing.
			for j := 0; j < x; j++ {
				clear(t.xsT[j*t.slotPad+t.nb : (j+1)*t.slotPad])
			}
		}
	}
	t.up, t.down = weights{m: m.cp, stride: m.cpStride(), up: true}, weights{m: m.ch, stride: x}
	if t.sp != nil {
		if t.spStale {
			t.sp.build(m, t.velW)
			t.spStale = false
		}
		t.up.sp, t.down.sp = &t.sp.hid.csr, &t.sp.vis.csr
	}
	t.cdDown = t.down
	t.vis.prepare(t)
	blocks := (t.nb + t.block - 1) / t.block
	t.phase(blocks, t.blockFn, t.phaseTime(0))
	if t.stopping() { // the chains stopped early: no update from them
		t.broken = true
		return 0, errAbandoned
	}
	if t.pcd != nil && t.nb == t.cfg.Batch {
		t.pcdInit = true // every slot's chains started (chainBlock)
	}
	// The rows, then the hidden bias in chunks (small tasks last, to even
	// out the phase's end); each visible row's bias goes with its row.
	// Centred, the hidden biases follow the rows' corrections.
	if t.ctr != nil {
		t.centreStart()
		t.phase(len(t.rowOK), t.rowFn, t.phaseTime(1))
		t.centreHidden()
	} else {
		t.phase(len(t.rowOK)+len(t.biasOK), t.rowFn, t.phaseTime(1))
	}

	var recon float64
	for c := 0; c < t.nb; c++ {
		recon += t.recon[c]
	}
	for k, ok := range t.rowOK {
		if !ok {
			return 0, &NumericalError{t.epoch + 1, t.batch + 1, fmt.Sprintf("W (visible rows %d–%d)", k*rowChunk, min((k+1)*rowChunk, x)-1)}
		}
	}
	for _, ok := range t.biasOK {
		if !ok {
			return 0, &NumericalError{t.epoch + 1, t.batch + 1, "hidden bias b"}
		}
	}
	for _, ok := range t.visOK {
		if !ok {
			return 0, &NumericalError{t.epoch + 1, t.batch + 1, "visible bias d"}
		}
	}
	if math.IsNaN(recon) || math.IsInf(recon, 0) {
		return 0, &NumericalError{t.epoch + 1, t.batch + 1, "reconstruction error"}
	}
	return recon, nil
}

// updateBias applies the summed gradient g to the bias vector b, with
// momentum (velocity vel) but never weight decay.
func (t *Trainer) updateBias(b, g, vel []float32) bool {
	if t.cfg.plainUpdate() {
		return kernel.UpdateDense(b, nil, g, t.alpha)
	}
	p := t.step
	p.L1 = 0
	if t.cfg.SETProcedure != Mocanu { // the SET authors decay the biases too
		p.L2 = 0
	}
	return kernel.UpdateMomentum(b, nil, nil, g, vel, p)
}

// clearAbsentVelocity zeroes the velocity of every absent connection after
// a rewiring, as the dense update would at the next minibatch (a removed
// connection keeps none), since the update on compressed rows visits only
// present connections.
func (t *Trainer) clearAbsentVelocity() {
	if t.velW == nil {
		return
	}
	for k, a := range t.m.A[:t.m.DataUnits*t.m.H] {
		if a == 0 {
			t.velW[k] = 0
		}
	}
}

// velRow returns row j of W's velocity.
func (t *Trainer) velRow(j int) []float32 { return t.velW[j*t.m.H : (j+1)*t.m.H] }
