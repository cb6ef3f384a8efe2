package kernel

import (
	"fmt"
	"os"
	"strings"
)

// impl is one tier's set of kernels. A nil field falls back to the generic
// version, so a tier can be built up kernel by kernel.
type impl struct {
	name string
	// affine: out[c*nout+o] = bias[o] + Σ_j in[c*nin+j]·m[j*nout+o].
	affine func(out, bias, in, m []float32, nc, nin, nout int)
	// affineSigmoid: see AffineSigmoid (lengths checked). A tier without
	// it composes its affine, axpy and sigmoid (affineSigmoidVia).
	affineSigmoid func(out []float32, ldo int, add []float32, lda int, in, m, next, tmp []float32, nc, nin, nout int)
	// bothOn: see BothOn (lengths checked, ni, no, words ≥ 1).
	bothOn func(out []float32, a []uint64, lda int, b []uint64, ldb, words, ni, no int)
	// packBits64: see PackBits (lengths checked, nc, n ≥ 1).
	packBits64 func(bits []uint64, ldb int, s []float32, lds, nc, n int)
	// sumRows: out[o] += Σ_{j∈idx} m[j*stride+o] for o < n.
	sumRows func(out, m []float32, stride int, idx []int32, n int)
	// sumRowsBlocked: the row sums of one or two lists in row blocks (see
	// sumRowsBlockedGeneric). A tier without it (NEON; fillGeneric leaves
	// it nil) sums each chain's rows tile by tile with sumRows.
	sumRowsBlocked func(m []float32, ldm, nc, nin, nout int, a, b rowSums)
	// indices: positions of the non-zero entries of s, returns the count.
	indices func(idx []int32, s []float32) int
	// changes: see Changes.
	changes func(idx, on, off []int32, ref, s []float32) (ones, non, noff int)
	// sigmoid, softplus: element-wise, dst may alias src.
	sigmoid  func(dst, src []float32)
	softplus func(dst, src []float32)
	// bernoulli: dst[i] = 1 if u_i < p[i] else 0.
	bernoulli func(dst, p []float32, s *Stream)
	// sigmoidBernoulli: prob = σ(pre); state = 1 if u_i < prob[i].
	sigmoidBernoulli func(prob, state, pre []float32, s *Stream)
	// gaussian: dst[i] = mean[i] + sigma[i]·Φ⁻¹(u_i) (see GaussianSample).
	gaussian func(dst, mean, sigma []float32, s *Stream)
	// softmaxSample, softmax: see SoftmaxSample and Softmax (groups
	// checked, len(pre) > 0). A tier without its own builds them from its
	// softmaxExp and softmaxFinish (softmaxSampleVia, softmaxVia).
	softmaxSample func(prob, state, pre []float32, groups []int32, s *Stream)
	softmax       func(prob, pre []float32, groups []int32)
	// softmaxExp: dst[i] = expRef(src[i]) for src[i] ≤ 0, −Inf or NaN;
	// dst may be src. softmaxFinish: prob[i] /= |state[i]|, state[i] = 1
	// where its sign bit is set, else 0 (see softmax_tier.go).
	softmaxExp    func(dst, src []float32)
	softmaxFinish func(prob, state []float32)
	// softmaxSampleBlocks, softmaxBlocks: SoftmaxSample and Softmax for
	// the groups of groups, 16 at a time, up to the first 16 that hold a
	// group too large for them; they return the number of groups done. A
	// tier with them builds SoftmaxSample and Softmax on them
	// (softmaxSampleBlocked, softmaxBlocked).
	softmaxSampleBlocks func(prob, state, pre []float32, groups []int32, s *Stream) int
	softmaxBlocks       func(prob, pre []float32, groups []int32) int
	// groupsValid: whether checkGroups(groups, n) passes.
	groupsValid func(groups []int32, n int) bool
	// axpy: y[i] += a·x[i].
	axpy func(y []float32, a float32, x []float32)
	// updates: see the exported functions. They return a value that is 0 when
	// every new weight is finite and NaN otherwise.
	updateNCG    func(w, ap, a, c, g []float32, alpha, alphaA, gamma float32) float32
	updateMasked func(w, a, c, g []float32, alpha float32) float32
	updateDense  func(w, c, g []float32, alpha float32) float32
	// updateMom, updateMomNCG: see UpdateMomentum (a nil: all ones, c nil:
	// not written) and UpdateMomentumNCG, with the same result as the
	// updates above.
	updateMom    func(w, a, c, g, v []float32, p Step) float32
	updateMomNCG func(w, ap, a, c, g, v []float32, p Step) float32
	transpose    func(dst, src []float32, rows, cols, ldd, lds int)
	// taylorSums: see TaylorSums; len(a) = len(p) is a multiple of 4.
	taylorSums func(a, p []float32, s *[3][4]float64, lohi *[2][4]float32)
	// prefetchW: see PrefetchW; n ≥ 1, len(s) = (n−1)·stride+1.
	prefetchW func(s []float32, n, stride int)
	// sparseAffine, gatherSum, dotRows: see SparseAffine (lanes 8, 16 or
	// 32), GatherSum and DotRows (structure and indices checked by the
	// callers).
	sparseAffine func(out, bias, in []float32, lanes int, ptr, col []int32, val []float32)
	gatherSum    func(dst, src []float32, stride int, rows []int32, cols []int32)
	dotRows      func(dst, a, m []float32, offs []int32)
	// sparseBinary: see SparseAffineBinary (shapes checked by the caller).
	sparseBinary func(out, bias, in []float32, nc int, m *CSR, w *SparseWork)
}

var (
	generic = &impl{
		name:             "generic",
		affine:           affineGeneric,
		bothOn:           bothOnGeneric,
		packBits64:       packBits64Generic,
		sumRows:          sumRowsGeneric,
		sumRowsBlocked:   sumRowsBlockedGeneric,
		indices:          indicesGeneric,
		changes:          changesGeneric,
		sigmoid:          sigmoidGeneric,
		softplus:         softplusGeneric,
		bernoulli:        bernoulliGeneric,
		sigmoidBernoulli: sigmoidBernoulliGeneric,
		gaussian:         gaussianGeneric,
		softmaxSample:    softmaxSampleGeneric,
		softmax:          softmaxGeneric,
		softmaxExp:       softmaxExpGeneric,
		softmaxFinish:    softmaxFinishGeneric,
		groupsValid:      groupsValidGeneric,
		axpy:             axpyGeneric,
		updateNCG:        updateNCGGeneric,
		updateMasked:     updateMaskedGeneric,
		updateDense:      updateDenseGeneric,
		updateMom:        updateMomGeneric,
		updateMomNCG:     updateMomNCGGeneric,
		transpose:        transposeGeneric,
		taylorSums:       taylorSumsGeneric,
		prefetchW:        prefetchWGeneric,
		sparseAffine:     sparseAffineGeneric,
		gatherSum:        gatherSumGeneric,
		dotRows:          dotRowsGeneric,
		sparseBinary:     sparseBinaryGeneric,
	}
	// available lists the tiers this CPU and build support, best first:
	// the architecture's assembly tiers (archTiers), then generic.
	available = detectTiers()
	// cur is the tier in use: NCG_KERNEL's if it names an available tier,
	// else the best. tierErr records a bad NCG_KERNEL value; Init reports it.
	cur, tierErr = chooseTier(os.Getenv(EnvVar))
)

// The tier is chosen while the package initialises, as math/big and
// x/crypto set their CPU feature flags: package-level variables are
// initialised in dependency order across files, so detectTiers sees every
// tier the architecture file defines, whatever the order of the files.

// detectTiers returns the tiers this CPU and build run, best first, each
// with its missing kernels filled from the generic set.
func detectTiers() []*impl {
	var ts []*impl
	for _, t := range archTiers() {
		fillGeneric(t)
		ts = append(ts, t)
	}
	generic.affineSigmoid = affineSigmoidVia(generic)
	return append(ts, generic)
}

func fillGeneric(t *impl) {
	if t.affine == nil {
		t.affine = generic.affine
	}
	if t.bothOn == nil {
		t.bothOn = generic.bothOn
	}
	if t.packBits64 == nil {
		t.packBits64 = generic.packBits64
	}
	if t.sumRows == nil {
		t.sumRows = generic.sumRows
	}
	if t.indices == nil {
		t.indices = generic.indices
	}
	if t.changes == nil {
		t.changes = changesVia(t)
	}
	if t.sigmoid == nil {
		t.sigmoid = generic.sigmoid
	}
	if t.softplus == nil {
		t.softplus = generic.softplus
	}
	if t.bernoulli == nil {
		t.bernoulli = generic.bernoulli
	}
	if t.sigmoidBernoulli == nil {
		t.sigmoidBernoulli = generic.sigmoidBernoulli
	}
	if t.gaussian == nil {
		t.gaussian = generic.gaussian
	}
	if t.softmaxExp == nil {
		t.softmaxExp = generic.softmaxExp
	}
	if t.softmaxFinish == nil {
		t.softmaxFinish = generic.softmaxFinish
	}
	if t.groupsValid == nil {
		t.groupsValid = generic.groupsValid
	}
	if t.softmaxSample == nil && t.softmaxSampleBlocks != nil {
		t.softmaxSample = softmaxSampleBlocked(t)
	}
	if t.softmaxSample == nil {
		t.softmaxSample = softmaxSampleVia(t)
	}
	if t.softmax == nil && t.softmaxBlocks != nil {
		t.softmax = softmaxBlocked(t)
	}
	if t.softmax == nil {
		t.softmax = softmaxVia(t)
	}
	if t.taylorSums == nil {
		t.taylorSums = generic.taylorSums
	}
	if t.axpy == nil {
		t.axpy = generic.axpy
	}
	if t.updateNCG == nil {
		t.updateNCG = generic.updateNCG
	}
	if t.updateMasked == nil {
		t.updateMasked = generic.updateMasked
	}
	if t.updateDense == nil {
		t.updateDense = generic.updateDense
	}
	if t.updateMom == nil {
		t.updateMom = generic.updateMom
	}
	if t.updateMomNCG == nil {
		t.updateMomNCG = generic.updateMomNCG
	}
	if t.transpose == nil {
		t.transpose = generic.transpose
	}
	if t.prefetchW == nil {
		t.prefetchW = generic.prefetchW
	}
	if t.sparseAffine == nil {
		t.sparseAffine = generic.sparseAffine
	}
	if t.gatherSum == nil {
		t.gatherSum = generic.gatherSum
	}
	if t.dotRows == nil {
		t.dotRows = generic.dotRows
	}
	if t.sparseBinary == nil {
		t.sparseBinary = sparseBinaryVia(t)
	}
	if t.affineSigmoid == nil {
		t.affineSigmoid = affineSigmoidVia(t) // after axpy and sigmoid
	}
}

// EnvVar names the environment variable that forces a tier.
const EnvVar = "NCG_KERNEL"

// chooseTier returns the tier an NCG_KERNEL value asks for, or the best
// one (and an error when the value is set but not honoured).
func chooseTier(env string) (*impl, error) {
	v := strings.TrimSpace(env)
	if v == "" {
		return available[0], nil
	}
	t, err := findTier(v)
	if err != nil {
		return available[0], err
	}
	return t, nil
}

// Init reports whether the NCG_KERNEL setting was honoured. Commands call it
// at start-up to turn a bad setting into a clear error; library users may
// ignore it (the best tier is used instead).
func Init() error { return tierErr }

// Tier names the tier in use: "avx512", "avx2", "neon" or "generic".
func Tier() string { return cur.name }

// Tiers lists the tiers this CPU and build can run, best first.
func Tiers() []string {
	out := make([]string, len(available))
	for i, t := range available {
		out[i] = t.name
	}
	return out
}

// findTier returns the available tier called name, or an error saying
// whether this CPU or build lacks it or no tier has that name.
func findTier(name string) (*impl, error) {
	for _, t := range available {
		if t.name == name {
			return t, nil
		}
	}
	switch name {
	case "generic", "avx2", "avx512", "neon":
		return nil, fmt.Errorf("%s=%s: this CPU or build does not support tier %q (available: %s)", EnvVar, name, name, strings.Join(Tiers(), ", "))
	}
	return nil, fmt.Errorf("%s=%s: unknown tier (want generic, avx2, avx512 or neon)", EnvVar, name)
}
