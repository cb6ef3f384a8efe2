package engine

import (
	"context"
	"fmt"
)

// UpData returns the states of layer l (1 ≤ l < len(s.RBMs)) of a DBN for
// every row of d, one sample each, drawn upward through the recognition
// q(layer k+1 | layer k) = σ(c^k + C^kᵀ·layer k) of the RBMs below it, as
// a DBN's pre-training draws the data of RBM l, from streams keyed by seed.
// It is the data of the top RBM's visible layer, to which an evaluation
// fits the base model of the top RBM's AIS. The sample does not depend on
// workers.
func (s *Stack) UpData(ctx context.Context, d *Data, l int, seed uint64, workers int) (*Data, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	if l < 1 || l >= len(s.RBMs) {
		return nil, fmt.Errorf("engine: UpData of layer %d of a stack of %d RBMs: want 1 ≤ l < %d", l, len(s.RBMs), len(s.RBMs))
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if m := s.RBMs[0]; d.D != m.DataUnits || d.Classes != 0 {
		return nil, fmt.Errorf("engine: UpData: data of %d units and %d classes for a stack of %d visible units", d.D, d.Classes, m.X)
	}
	for k := 1; k <= l; k++ {
		var err error
		if d, err = upperData(ctx, s.RBMs[k-1], d, 1, seed, k, workers); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// Compressed reports whether the RBM in pre-training trains on compressed
// rows (Trainer.Compressed); false once pre-training is over (a DBM's
// joint training computes its products densely).
func (t *StackTrainer) Compressed() bool { return t.cur != nil && t.cur.Compressed() }
