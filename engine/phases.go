package engine

import "time"

// Phases is where training time went, summed over minibatches. A
// minibatch runs two parallel phases on the workers, one after the
// other: Chains, the Gibbs chains (CD-k, in blocks of chains), and Rows,
// the gradient and update of each visible row with its bias, and of the
// hidden biases. The rest of a minibatch (Serial) runs on one goroutine:
// the step size, the sum of the reconstruction errors and the checks for
// NaN and Inf.
type Phases struct {
	Workers      int           // goroutines of the phases
	Minibatches  int           // minibatches measured
	Total        time.Duration // their wall time
	Chains, Rows PhaseTime
}

// PhaseTime is one parallel phase's share of the training time.
type PhaseTime struct {
	Wall time.Duration // from the phase's start until its last task ended
	Busy time.Duration // in its tasks, summed over the workers
}

// Serial returns the minibatch time outside the parallel phases.
func (p *Phases) Serial() time.Duration { return p.Total - p.Chains.Wall - p.Rows.Wall }

// Idle returns the fraction of the workers' time in the phase that went
// to waiting (for a task or for the others to finish):
// 1 − Busy / (workers × Wall).
func (pt PhaseTime) Idle(workers int) float64 {
	if pt.Wall <= 0 || workers <= 0 {
		return 0
	}
	return 1 - float64(pt.Busy)/(float64(workers)*float64(pt.Wall))
}

// phaseTime returns the Phases entry of phase i (0 Chains, 1 Rows), or nil
// when phases are not measured.
func (t *Trainer) phaseTime(i int) *PhaseTime {
	switch {
	case t.phases == nil:
		return nil
	case i == 0:
		return &t.phases.Chains
	}
	return &t.phases.Rows
}

// phase runs fn on the pool for every task and adds its time to pt, if
// pt is not nil.
func (t *Trainer) phase(tasks int, fn func(int), pt *PhaseTime) {
	if pt == nil {
		t.pool.run(tasks, fn, nil)
		return
	}
	t.busy.Store(0)
	start := time.Now()
	t.pool.run(tasks, fn, &t.busy)
	pt.Wall += time.Since(start)
	pt.Busy += time.Duration(t.busy.Load())
}
