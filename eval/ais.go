package eval

import (
	"context"
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/kernel"
)

// DefaultRuns is the number of AIS runs of Salakhutdinov & Murray (2008).
const DefaultRuns = 100

// AISConfig configures AIS. The zero value (plus BaseBias) reproduces
// Salakhutdinov & Murray (2008): 100 runs, DefaultSchedule, seed 0.
type AISConfig struct {
	// Runs is the number of independent AIS runs (≤ 0: DefaultRuns).
	Runs int
	// Betas is the schedule of inverse temperatures, from 0 to 1,
	// non-decreasing (nil: DefaultSchedule). Its length minus one is the
	// number of intervals.
	Betas []float64
	// Seed keys the random streams: run r draws from kernel.NewStream(Seed, r).
	Seed uint64
	// Workers is the number of goroutines (≤ 0: GOMAXPROCS). The result does
	// not depend on it.
	Workers int
	// BaseBias holds the base model (length X), usually FitBase of the
	// training rows: for binary units the visible biases d_A of the
	// base-rate model (DataBaseRate), for categorical units the visible
	// biases d_A of independent groups (the log of each unit's smoothed
	// frequency within its group), for Gaussian units the means of the
	// Gaussian base model (BaseMean). Nil means d_A = 0 (binary: every
	// unit on with probability ½; categorical: a uniform draw in every
	// group) or zero means: valid, but with a far larger variance on data
	// like MNIST (docs/algorithm.md, "Evaluation").
	BaseBias []float32
	// Hidden anneals the hidden units' marginal p*(h), the visible layer
	// summed out, instead of the visible units' (AISHidden's route): the
	// base model is then independent hidden units with biases BaseBias
	// (length H; nil: zeros, every unit on with probability ½).
	Hidden bool

	// key offsets the ids of the runs' streams: run r draws from
	// kernel.NewStream(Seed, key + r), so that the routes of one
	// evaluation (CheckAIS) draw independently of each other.
	key uint64
	// tick, if set, is called with the intervals the chains have done
	// since its last call (from the worker goroutines); Evaluate's
	// progress.
	tick func(intervals int64)
}

// AISResult is an AIS estimate of log Z.
type AISResult struct {
	// LogZ is log Ẑ = log Z_A + log(mean_r w_r).
	LogZ float64
	// LogZLo and LogZHi are log(mean(w) ∓ 3·std(w)/√Runs) + log Z_A, with
	// std the sample standard deviation (n−1). LogZLo is −Inf when
	// mean(w) − 3·std(w)/√Runs ≤ 0 (the bound is then uninformative); with
	// one run both bounds are infinite.
	LogZLo, LogZHi float64
	// LogZBase is log Z_A of the base-rate model.
	LogZBase float64
	// LogWeights holds log w_r for each run r, in run order.
	LogWeights []float64
	// ESS is the effective sample size of the importance weights,
	// (Σ_r w_r)²/Σ_r w_r²: Runs when every run has the same weight, 1 when
	// one run carries them all. A small ESS says the estimate rests on a
	// few runs (and its interval on fewer still); a large one says
	// nothing about modes that no run reached.
	ESS float64
	// SE is the delta-method standard error of log Ẑ, sd(w)/(mean(w)·√Runs)
	// with the sample standard deviation (NaN for one run): the normal
	// approximation's scale, finite where LogZLo is −Inf.
	SE        float64
	Seed      uint64
	Runs      int
	Intervals int
	// Hidden: the estimate annealed the hidden marginal (AISConfig.Hidden).
	Hidden bool
}

// softplus64 is log(1+e^x) in float64, stable for all x.
func softplus64(x float64) float64 {
	return math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x)))
}

// aisRefresh is the most incremental product updates between two fresh
// recomputations (bounds float32 drift, see binProduct).
const aisRefresh = 32

// incremental turns the incremental products on (tests and benchmarks
// switch it off to compare).
var incremental = true

// taylorWeights turns on the series for the softplus differences of the
// weights (softplusDiffTaylor); tests switch it off to compare.
var taylorWeights = true

// AIS estimates log Z by annealed importance sampling (Salakhutdinov &
// Murray 2008) from a base model p_A (cfg.BaseBias) to the model, through
// p*_β(x, h) = exp(−(1−β)E_A(x) − βE(x, h)), E_A the base model's energy.
//
// For binary units the base model is the base-rate model: zero weights and
// hidden biases, visible biases d_A, log Z_A = Σ_j softplus(d_A_j) + H·log 2,
// and summing out h,
//
//	log p*_β(x) = (1−β)xᵀd_A + βxᵀd + Σ_i softplus(β(b_i + C_i·x)).
//
// Each run draws x from p_A, then for every β_k adds
// log p*_{β_k}(x) − log p*_{β_{k−1}}(x) to its log weight and, for k below
// the last, makes one Gibbs transition at β_k: h ~ σ(β_k(b + Cx)), then
// x ~ σ((1−β_k)d_A + β_k(d + Cᵀh)). The hidden pre-activation b + Cx is
// computed once per step and serves both the weight and the transition;
// so does σ(β_k(b + Cx)): the weight's Σ_i softplus(β_k a_i) −
// softplus(β_{k−1} a_i) comes from it by a third-order Taylor series when
// every |Δβ·a_i| is small (softplusDiffTaylor, at least as accurate as two
// float32 softplus), else from two softplus passes.
//
// For categorical units the base model has independent groups: group g is
// unit k with probability softmax_k(d_A_g), and log Z_A = Σ_g logsumexp_k
// d_A_gk + H·log 2. p*_β(x) is the binary one over one-hot x, and the
// transition draws h ~ σ(β_k(b + Cx)), then in each group x_g ~
// softmax((1−β_k)d_A_g + β_k(d + Cᵀh)_g).
//
// For Gaussian units the base model has independent visible units
// N(d_A_j, σ_j²), with the model's σ and the means d_A, and free hidden
// units: log Z_A = H·log 2 + Σ_j ½·log(2πσ_j²). p*_β is then a Gaussian
// model with the interaction and hidden biases scaled by β, and a Gibbs
// transition draws v from N((1−β)d_A + β(d + Ch), σ²) (the derivation is
// at gaussUnits).
//
// Runs are independent, each with its own stream kernel.NewStream(Seed, r).
// Each worker advances a block of runs in lockstep (runBlock), which shares
// the rows of C between the runs of a block; a run's arithmetic does not
// depend on its block, so the result is bit-identical for any number of
// workers (on a given kernel tier).
//
// When ctx is done it stops early, with an error wrapping ctx.Err(): every
// run looks every stopEvery intervals.
func AIS(ctx context.Context, m *Model, cfg AISConfig) (*AISResult, error) {
	u, err := m.units()
	if err != nil {
		return nil, err
	}
	runs := cfg.Runs
	if runs <= 0 {
		runs = DefaultRuns
	}
	if cfg.Hidden {
		return aisHidden(ctx, m, u, runs, cfg)
	}
	r, logZA, err := newAISRunner(m, u, cfg.Betas, cfg.BaseBias, cfg.Seed)
	if err != nil {
		return nil, err
	}
	r.done, r.tick, r.key = ctx.Done(), cfg.tick, cfg.key
	logw, err := runInBlocks(ctx, runs, cfg.Workers, r.newBlock, r.runBlock, r.stopErr)
	if err != nil {
		return nil, err
	}
	return aisResult(logw, logZA, cfg.Seed, len(r.beta)-1), nil
}

// runInBlocks runs chains 0…runs−1 (AIS runs or RAISE chains) in blocks,
// one block of chains per worker (at most maxBlockRuns a block), each
// worker with its own scratch from newBlock; a chain's result does not
// depend on its block, only on its number. stop is checked after every
// block.
func runInBlocks[B any](ctx context.Context, runs, workers int, newBlock func(size int) B,
	run func(b B, first int, logw []float64), stop func(context.Context) error) ([]float64, error) {
	logw := make([]float64, runs)
	workers = workerCount(workers, runs)
	size := min((runs+workers-1)/workers, maxBlockRuns)
	blocks := (runs + size - 1) / size
	sc := make([]B, workerCount(workers, blocks))
	for w := range sc {
		sc[w] = newBlock(size)
	}
	err := parallel(ctx, blocks, len(sc), func(w, blk int) error {
		first := blk * size
		run(sc[w], first, logw[first:min(first+size, runs)])
		return stop(ctx)
	})
	return logw, err
}

// aisResult is the estimate of the log weights of runs from a base model
// of log partition function logZA.
func aisResult(logw []float64, logZA float64, seed uint64, intervals int) *AISResult {
	res := &AISResult{LogZBase: logZA, LogWeights: logw, Seed: seed, Runs: len(logw), Intervals: intervals}
	res.LogZ, res.LogZLo, res.LogZHi = aisEstimate(logw, logZA)
	res.ESS = effectiveSampleSize(logw)
	res.SE = logMeanSE(logw)
	return res
}

// logMeanSE returns sd(w)/(mean(w)·√n) of the weights exp(logw), with the
// sample standard deviation (n−1), computed with the weights scaled by
// their maximum (NaN for fewer than two weights or a NaN or +Inf one).
func logMeanSE(logw []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range logw {
		mx = math.Max(mx, v)
	}
	n := float64(len(logw))
	if len(logw) < 2 || math.IsInf(mx, 0) || math.IsNaN(mx) {
		return math.NaN()
	}
	var s, ss float64
	for _, v := range logw {
		s += math.Exp(v - mx)
	}
	mu := s / n
	for _, v := range logw {
		e := math.Exp(v-mx) - mu
		ss += e * e
	}
	return math.Sqrt(ss/(n-1)) / (mu * math.Sqrt(n))
}

// effectiveSampleSize returns (Σ w)²/Σ w² of the weights exp(logw),
// computed with the weights scaled by their maximum (NaN when a log weight
// is NaN or +Inf, or there are none).
func effectiveSampleSize(logw []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range logw {
		mx = math.Max(mx, v)
	}
	if math.IsInf(mx, 0) || math.IsNaN(mx) {
		return math.NaN()
	}
	var s, ss float64
	for _, v := range logw {
		w := math.Exp(v - mx)
		s += w
		ss += w * w
	}
	return s * s / ss
}

// schedule returns betas (nil: DefaultSchedule) after checking it.
func schedule(betas []float64) ([]float64, error) {
	if betas == nil {
		betas = DefaultSchedule()
	}
	return betas, checkSchedule(betas)
}

// aisEstimate returns log Z_A + log mean(w) and the ±3σ bounds, computed
// with the weights scaled by their maximum.
func aisEstimate(logw []float64, logZA float64) (est, lo, hi float64) {
	n := float64(len(logw))
	mx := math.Inf(-1)
	for _, v := range logw {
		mx = math.Max(mx, v)
	}
	if math.IsInf(mx, 0) || math.IsNaN(mx) {
		return mx, math.NaN(), math.NaN()
	}
	var s float64
	for _, v := range logw {
		s += math.Exp(v - mx)
	}
	mu := s / n
	est = logZA + mx + math.Log(mu)
	if len(logw) < 2 {
		return est, math.Inf(-1), math.Inf(1)
	}
	var ss float64
	for _, v := range logw {
		e := math.Exp(v-mx) - mu
		ss += e * e
	}
	d := 3 * math.Sqrt(ss/(n-1)) / math.Sqrt(n)
	hi = logZA + mx + math.Log(mu+d)
	lo = math.Inf(-1)
	if mu-d > 0 {
		lo = logZA + mx + math.Log(mu-d)
	}
	return est, lo, hi
}

// padRows returns m (rows×cols) copied into rows of the given stride, in a
// slice whose first element is 64-byte aligned; the padding is zero.
func padRows(m []float32, rows, cols, stride int) []float32 {
	out := kernel.Aligned(rows * stride)
	for i := 0; i < rows; i++ {
		copy(out[i*stride:i*stride+cols], m[i*cols:(i+1)*cols])
	}
	return out
}

// newAISRunner checks the schedule (nil: DefaultSchedule) and the base
// model (nil: the type's default), and prepares what every AIS (or RAISE)
// chain reads. It returns the base model's log Z_A too.
func newAISRunner(m *Model, u visible, betas []float64, base []float32, seed uint64) (*aisRunner, float64, error) {
	betas, err := schedule(betas)
	if err != nil {
		return nil, 0, err
	}
	logZA, vbias, err := u.anneal(base)
	if err != nil {
		return nil, 0, err
	}
	r := &aisRunner{m: m, u: u, vbias: vbias, seed: seed}
	// Rows start on 64-byte boundaries (a row of 500 floats otherwise starts
	// mid-line in three rows of four, and its loads span two lines) an odd
	// number of lines apart (kernel.PadStride: 500 → 528), so that the
	// column tiles of the lockstep row sums spread over L1's sets.
	r.xs = kernel.PadStride(m.X)
	r.ct = padRows(m.transposed(), m.H, m.X, r.xs)
	r.beta = make([]float32, len(betas))
	for k, b := range betas {
		r.beta[k] = float32(b)
	}
	return r, logZA, nil
}

// aisRunner holds what all chains share (read-only).
type aisRunner struct {
	m     *Model
	u     visible   // the unit type, prepared by anneal
	xs    int       // row stride of ct
	ct    []float32 // Cᵀ, H×X, rows padded to xs
	vbias []float32 // the bias of the visible product vbias + Cᵀh
	beta  []float32 // the schedule in float32, used identically everywhere
	seed  uint64
	key   uint64 // chain c draws from kernel.NewStream(seed, key + c)
	// done, when closed, makes every chain return early (its result is
	// then meaningless); nil never closes.
	done <-chan struct{}
	tick func(intervals int64) // progress (nil: none)
}

// newBlock returns a worker's scratch for a block of size chains.
func (r *aisRunner) newBlock(size int) *chainBlock {
	return newChainBlock(r.u, size, r.m.H, r.m.X)
}

// stopEvery is how many intervals a chain runs between looks at done: a
// look costs nothing next to an interval, and 256 intervals of a 500×784
// model take well under a second.
const stopEvery = 256

// advance reports that chains did that many more intervals.
func (r *aisRunner) advance(intervals int) {
	if r.tick != nil {
		r.tick(int64(intervals))
	}
}

// stopped reports whether done is closed.
func (r *aisRunner) stopped() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// stopErr is the error of chains stopped by ctx (nil if they ran through).
func (r *aisRunner) stopErr(ctx context.Context) error {
	if r.stopped() {
		return fmt.Errorf("eval: stopped: %w", ctx.Err())
	}
	return nil
}

// hiddenStep is interval k of a chain, given its hidden input a: it
// returns the hidden units' part of the log-weight increment,
// Σ_i softplus(β_k a_i) − softplus(β_{k−1} a_i), and, for k below the last,
// draws h ~ σ(β_k a). s1 (H), prob (≥ H) and sp (2H) are scratch.
func (r *aisRunner) hiddenStep(k int, a, h []float32, st *kernel.Stream, s1, prob, sp []float32) float64 {
	return softplusStep(r.beta[k], r.beta[k-1], k < len(r.beta)-1, a, h, st, s1, prob, sp)
}

// softplusStep is a step of a layer of binary units of input a between
// inverse temperatures bp and bk: it returns Σ_i softplus(bk·a_i) −
// softplus(bp·a_i) and, when draw is set, draws the units' states s ~
// σ(bk·a). s1 (len(a)), prob (≥ len(a)) and sp (2·len(a)) are scratch.
// AIS's hidden units take it (hiddenStep), and so do the binary visible
// units of the hidden-marginal AIS (binaryUnits.marginalStep).
func softplusStep(bk, bp float32, draw bool, a, s []float32, st *kernel.Stream, s1, prob, sp []float32) float64 {
	H := len(a)
	clear(s1[:H])
	kernel.Axpy(s1, bk, a)
	// p = σ(β_k a); s ~ p except at the last step.
	if draw {
		kernel.SigmoidBernoulli(prob[:H], s, s1[:H], st)
	} else {
		kernel.Sigmoid(prob[:H], s1[:H])
	}
	dsp, ok := softplusDiffTaylor(float64(bk)-float64(bp), a, prob[:H])
	if !ok || !taylorWeights {
		dsp = softplusDiff(sp, a, bk, bp)
	}
	return dsp
}

// incrementalPays reports whether a product is brought up to date by the
// rows that changed (ones units on, non switched on and noff off since the
// last update) rather than summed afresh: only after a fresh sum (valid),
// for fewer than aisRefresh updates in a row (bounds drift, see
// binProduct), and when fewer units changed than are on.
func incrementalPays(valid bool, since, ones, non, noff int) bool {
	return valid && incremental && since < aisRefresh && non+noff < ones
}

// aisTaylorMax bounds |Δβ·a_i| for softplusDiffTaylor: the first omitted
// term of the series is at most Δz⁴·max|σ‴|/24 ≤ 5.2e-3·Δz⁴ ≤ 3.3e-9 per
// unit at Δz = 0.028, below the rounding error of a float32 softplus
// (≈ 6e-8 at softplus ≈ 1), so the series is at least as accurate as the
// difference of two float32 softplus values.
const aisTaylorMax = 0.028

// softplusDiffTaylor returns Σ_i softplus(z_i) − softplus(z_i − Δz_i), with
// z_i = β_k a_i, Δz_i = db·a_i and p_i = σ(z_i), by the Taylor series of
// softplus about z_i to third order:
//
//	Δz·p − Δz²/2·p(1−p) + Δz³/6·p(1−p)(1−2p)
//
// (softplus′ = σ, σ′ = σ(1−σ), σ″ = σ(1−σ)(1−2σ)), in float64. It needs
// no transcendental beyond the σ(β_k a) the transition draws from. ok is
// false, and the sum meaningless, when some |Δz_i| exceeds aisTaylorMax
// (coarse schedules, early large steps): the caller then uses softplusDiff.
func softplusDiffTaylor(db float64, a, p []float32) (sum float64, ok bool) {
	// The three sums in float64, four interleaved partial sums each so
	// that the additions overlap (kernel.TaylorSums: AVX on x86, NEON on
	// arm64).
	S1, S2, S3, lo, hi := kernel.TaylorSums(a, p[:len(a)])
	sum = db*S1 - db*db*0.5*S2 + db*db*db*(1.0/6)*S3
	return sum, db*math.Max(-float64(lo), float64(hi)) <= aisTaylorMax
}

// softplusDiff returns Σ_i softplus(bk·a_i) − softplus(bp·a_i) with float32
// softplus (the two are close, so their float32 difference is exact or
// nearly), summed in float64. s is scratch of length 2·len(a).
func softplusDiff(s, a []float32, bk, bp float32) float64 {
	H := len(a)
	s1, s0 := s[:H], s[H:2*H]
	clear(s[:2*H])
	kernel.Axpy(s1, bk, a)
	kernel.Axpy(s0, bp, a)
	kernel.Softplus(s[:2*H], s[:2*H])
	kernel.Axpy(s1, -1, s0)
	return sum64(s1)
}
