// Package eval measures trained RBMs, binary or Gaussian–Bernoulli.
// Evaluate is the one entry point that a run and the eval command share:
// given a Plan it chooses exact log Z or annealed importance sampling
// (AIS), computes the NLL, optionally RAISE's estimate from above, and
// classification accuracy with label units, reporting each phase's
// progress. Its parts are exported too: free energies, the exact log
// partition function of small models, AIS and RAISE, classification, and a
// reader of models saved by MATLAB (MAT v5 files). The paper's
// protocol is named once here: DefaultRuns, DefaultIntervals (the
// schedule of DefaultSchedule), BasePseudoCount (DataBaseRate) and
// AutoExactBits (the automatic choice).
//
// Evaluation must not depend on the training engine: everything here takes
// the minimal Model view (acting weights C = W ⊙ A, the two bias vectors
// and, for Gaussian visible units, their standard deviations) and binary
// data as row-major []uint8 (data.Set for Evaluate). A Gaussian model
// (Model.Gaussian, the energy of Cho, Ilin & Raiko 2011) is measured on
// real-valued rows, []float32, by the functions named …Real
// (FreeEnergiesReal, AverageNLLReal, ExactNLLReal, RAISEReal) and by
// Evaluate with Sets.TrainReal and TestReal; ExactLogZ sums its hidden
// states with the Gaussian integral done analytically, and AIS anneals
// from a Gaussian base model (BaseMean). Its NLL is a negative
// log-density in nats per row, which can be negative.
//
// The inner loops are the float32 kernels of package kernel, called on
// whole rows; sums of many terms (log weights, free energies over a data
// set, log-sum-exp) are accumulated in float64.
//
// Every evaluation takes a context and stops within a second or so of its
// cancellation, with an error wrapping ctx.Err(). Parallel functions take
// a worker count (≤ 0 means runtime.GOMAXPROCS) and return results that do
// not depend on it: work is cut into fixed pieces and reduced in a fixed
// order, and every AIS run draws from its own random stream.
package eval
