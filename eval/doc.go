// Package eval measures trained binary RBMs: free energies, the exact log
// partition function of small models, annealed importance sampling (AIS)
// estimates of log Z for large ones, classification accuracy with label
// units, and connectivity statistics of a mask. It also reads models saved
// by MATLAB (MAT v5 files).
//
// Evaluation must not depend on the training engine: everything here takes
// the minimal Model view (acting weights C = W ⊙ A and the two bias
// vectors) and binary data as row-major []uint8. The inner loops are the
// float32 kernels of package kernel, called on whole rows; sums of many
// terms (log weights, free energies over a data set, log-sum-exp) are
// accumulated in float64.
//
// Parallel functions take a worker count (≤ 0 means runtime.GOMAXPROCS) and
// return results that do not depend on it: work is cut into fixed pieces and
// reduced in a fixed order, and every AIS run draws from its own random
// stream.
package eval
