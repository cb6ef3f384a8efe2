// Package eval measures trained RBMs whose visible units are binary,
// Gaussian or categorical (unit.Type) and whose hidden units are binary.
// Evaluate is the one entry point that a run and the eval command share:
// given a Plan it chooses exact log Z or annealed importance sampling
// (AIS), checks an AIS estimate by other estimators and gives their
// verdict, computes the NLL, optionally RAISE's estimate and BDMC's
// bounds, and classification accuracy with label units, reporting each
// phase's progress. Its parts are exported too: free energies, the exact
// log partition function of small models, exact samples of them, AIS (of
// either layer's marginal), RAISE, BDMC, the checks (CheckAIS),
// classification, and a reader of models saved by MATLAB (MAT v5 files).
// Deep models, stacks of RBMs seen through the DBM and DBN views, have
// theirs (deep*.go): a DBM's exact log Z, its AIS with the odd layers
// summed out and its mean-field bound on each row's log-probability, and
// a DBN's variational bound, all over the same per-type code.
// The paper's
// protocol is named once here: DefaultRuns, DefaultIntervals (the
// schedule of DefaultSchedule), BasePseudoCount (DataBaseRate) and
// AutoExactBits (the automatic choice).
//
// Evaluation must not depend on the training engine: everything here takes
// the minimal Model view (acting weights C = W ⊙ A, the two bias vectors,
// the type of the visible units and its parameters: σ of Gaussian units,
// the groups of categorical ones) and rows as a data.Set: binary rows for
// binary and categorical units, real-valued ones for Gaussian units
// (unit.Type.Accepts). Each unit type is one implementation of one
// interface inside the package (binary.go, gaussian.go, categorical.go:
// the input its states give the hidden units, its free energy's visible
// term, the log partition function of the visible layer given the hidden
// one, its AIS base model and transition, its RAISE step, which rows it
// reads); the exact sum, AIS, RAISE, the free energies, classification
// and Evaluate are written once over it. The NLL of a Gaussian model is a
// negative log-density in nats per row, which can be negative; that of a
// categorical model is over one-hot rows, the only vectors it gives mass.
//
// The inner loops are the float32 kernels of package kernel, called on
// whole rows; sums of many terms (log weights, free energies over a data
// set, log-sum-exp) are accumulated in float64.
//
// Every evaluation takes a context and stops within a second or so of its
// cancellation, with an error wrapping ctx.Err(). Parallel functions take
// a worker count (≤ 0 means runtime.GOMAXPROCS) and return results that do
// not depend on it: work is cut into fixed pieces and reduced in a fixed
// order, and every AIS run or RAISE chain draws from its own random stream.
package eval
