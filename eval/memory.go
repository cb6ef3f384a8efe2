package eval

import (
	"github.com/ncg-rbm/ncg/unit"
	"runtime"
	"unsafe"

	"github.com/ncg-rbm/ncg/kernel"
)

// MemoryPart is the memory of the arrays of an evaluation whose size one
// setting decides (named as ncgbench's flag: hidden, ais-runs, ais-betas,
// ais-max-betas, raise, raise-chains, bdmc), with what they are.
type MemoryPart struct {
	Setting string
	Value   int
	Bytes   float64
	What    string
}

// MemoryParts returns a lower bound of the memory the evaluation of a model
// of x visible and h hidden units by p takes besides the model and the
// data, with RAISE on at most rows rows (the measured set's; 0: unknown,
// p.RAISERows), split by the setting that sizes each part, so that a caller can
// refuse a plan that cannot fit before Evaluate allocates it. It is
// computed in float64, so that absurd sizes cannot overflow it.
func (p Plan) MemoryParts(units unit.Type, x, h, rows int) []MemoryPart {
	X, H := float64(x), float64(h)
	stream := float64(unsafe.Sizeof(kernel.Stream{}))
	runs := p.AISRuns
	if runs <= 0 {
		runs = DefaultRuns
	}
	intervals := p.AISIntervals
	if intervals <= 0 {
		intervals = DefaultIntervals
	}
	workers := p.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	layer := units.ExactLayer(x, h) // the layer an exact log Z would sum over
	ais := p.Likelihood.Resolve(layer, layer, p.LabelUnits) == LikelihoodAIS
	var parts []MemoryPart
	if ais || p.RAISERows > 0 {
		parts = append(parts,
			MemoryPart{"hidden", h, 2 * 4 * X * H, "the sampler's padded copies of C and Cᵀ"},
			MemoryPart{"ais-betas", p.AISIntervals, float64(intervals+1) * (8 + 4), "the schedule of inverse temperatures"})
	}
	// One block of at most maxBlockRuns chains per worker, each chain with
	// its states, inputs, stream and the block products' lists.
	chain := (2*X+2*H)*4 + stream + (X+H)*(4+3*4)
	if ais {
		// And a log weight per run.
		live := min(float64(runs), float64(workers)*maxBlockRuns)
		parts = append(parts, MemoryPart{"ais-runs", p.AISRuns, float64(runs)*8 + live*chain,
			"the AIS runs (a log weight each, and the states of the runs under way)"})
	}
	if ais && p.GrowIntervals > intervals {
		parts = append(parts, MemoryPart{"ais-max-betas", p.GrowIntervals, float64(p.GrowIntervals+1) * (8 + 4),
			"the longest schedule the checks' verdict can grow"})
	}
	if p.BDMCRows > 0 {
		// Each row, its stream, its reverse chain's estimate, free energy
		// and weight, its state and chunk, and the chains under way.
		n := float64(p.BDMCRows)
		parts = append(parts, MemoryPart{"bdmc", p.BDMCRows, n*(4*X+X+stream+8*6) + min(n, float64(workers)*maxBlockRuns)*chain,
			"the rows BDMC draws from the model and their reverse chains"})
	}
	if p.RAISERows > 0 {
		chains, k := max(p.RAISEChains, 1), p.RAISERows
		if rows > 0 {
			k = min(k, rows)
		}
		// A log p̂ per chain, a copy of the rows, and the chains under way.
		n := float64(k) * float64(chains)
		part := MemoryPart{"raise", p.RAISERows, n*8 + float64(k)*(8+X) + min(n, float64(workers)*maxBlockRuns)*chain,
			"the RAISE chains (rows × chains)"}
		if chains > k {
			part.Setting, part.Value = "raise-chains", chains
		}
		parts = append(parts, part)
	}
	return parts
}
