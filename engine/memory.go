package engine

import (
	"unsafe"

	"github.com/ncg-rbm/ncg/kernel"
)

// MemoryPart is the memory of the arrays whose size one setting decides
// (its name as the command's flag: hidden, batch, temperatures), with what
// they are, for an error that names the setting at fault.
type MemoryPart struct {
	Setting string
	Value   int
	Bytes   float64
	What    string
}

// MemoryBytes returns the memory the arrays of a Trainer of cfg take for
// visible units in all (data and label units), besides the data set: the
// sum of MemoryParts. It is a lower bound of what a run needs: the garbage
// collector's headroom, evaluation and export add to it. Callers compare it
// with the machine's memory to refuse, before any allocation, a
// configuration that cannot fit (a failed
// allocation is a fatal error in Go, not a panic). It is computed in
// float64 so that absurd sizes cannot overflow it.
func MemoryBytes(cfg Config, visible int) float64 {
	var sum float64
	for _, p := range MemoryParts(cfg, visible) {
		sum += p.Bytes
	}
	return sum
}

// MemoryParts splits MemoryBytes by the setting that sizes each part:
// hidden the X×H matrices of the model (W, A, C, its hidden-major copy CH,
// A′ for NCG, and the velocities with momentum or decay); batch the scratch
// sized by the minibatch (per slot five X-vectors and three X index lists,
// four H-vectors, the two halves of the statistics, one H index list and a
// random stream; per row chunk the gradient row and the chunk's lists of
// slots) and PCD's chains; for parallel tempering, the chains of every
// temperature of every slot (a state, an energy and a stream each), put
// down to temperatures or to batch, whichever is larger.
func MemoryParts(cfg Config, visible int) []MemoryPart {
	x, h, b := float64(visible), float64(cfg.Hidden), float64(cfg.Batch)
	matrices := 4.0
	if cfg.Method == NCG {
		matrices++
	}
	if !cfg.plainUpdate() {
		matrices++ // velocities of W
	}
	const word = 4 // float32 and int32
	stream := float64(unsafe.Sizeof(kernel.Stream{}))
	parts := []MemoryPart{
		{"hidden", cfg.Hidden, matrices*x*h*word + 3*(x+h)*word, "the model's X×H matrices"},
		{"batch", cfg.Batch, b*(8*x+7*h)*word + b*stream + (x/rowChunk+1)*(h+rowChunk*2*b)*word, "the minibatch's scratch"},
	}
	switch m := float64(cfg.chainsPerSlot()); {
	case cfg.sampler() == ParallelTempering:
		p := MemoryPart{"temperatures", cfg.Temperatures, m * b * (x*word + 8 + stream), "the parallel-tempering chains (batch × temperatures × visible units)"}
		if cfg.Batch > cfg.Temperatures {
			p.Setting, p.Value = "batch", cfg.Batch
		}
		parts = append(parts, p)
	case m > 0:
		parts = append(parts, MemoryPart{"batch", cfg.Batch, m * b * x * word, "the persistent chains (batch × visible units)"})
	}
	return parts
}
