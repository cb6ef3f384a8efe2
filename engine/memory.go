package engine

// MemoryBytes returns the memory the arrays of a Trainer of cfg take for
// visible units in all (data and label units), besides the data set: the
// X×H matrices of the model (W, A, C, its hidden-major copy CH, and A′ for
// NCG) and the scratch sized by the minibatch. It is a lower bound of what
// a run needs: the garbage collector's headroom, evaluation and export add
// to it. Callers compare it with the machine's memory to refuse, before
// any allocation, a configuration that cannot fit (a failed
// allocation is a fatal error in Go, not a panic). It is computed in
// float64 so that absurd sizes cannot overflow it.
func MemoryBytes(cfg Config, visible int) float64 {
	x, h, b := float64(visible), float64(cfg.Hidden), float64(cfg.Batch)
	matrices := 4.0
	if cfg.Method == NCG {
		matrices++
	}
	const word = 4 // float32 and int32
	model := matrices*x*h*word + (x+h)*word
	// Per minibatch slot: five X-vectors and three X index lists, four
	// H-vectors, the two halves of the statistics and one H index list;
	// per row chunk the gradient row and the chunk's lists of slots.
	scratch := b*(8*x+7*h)*word + (x/rowChunk+1)*(h+rowChunk*2*b)*word
	return model + scratch
}
