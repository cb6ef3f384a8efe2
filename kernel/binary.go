package kernel

import (
	"fmt"
	"unsafe"
)

// SumRowsBatch is SumRows for nc chains at once: for every chain c < nc it
// adds the rows of m named by idx[c*nin : c*nin+counts[c]] to
// out[c*nout : (c+1)*nout], with row j at m[j*ldm : j*ldm+nout]. Each
// chain's rows are added in the order listed, so the result is the same as
// nc calls of SumRows; on tiers with blocked row sums (AVX-512, AVX2,
// generic) the chains share column tiles and row blocks of m from cache
// instead of each reading its rows from memory. Every list must be strictly
// increasing and name rows of m (both checked). ldm = PadStride(nout) and a
// 64-byte aligned m (Aligned) read fastest.
func SumRowsBatch(out, m []float32, ldm, nc, nin, nout int, idx, counts []int32) {
	if nc <= 0 || nin <= 0 || nout <= 0 {
		return
	}
	l := rowSums{out, idx, counts}
	checkBatch(m, ldm, nc, nin, nout, l, [3]string{"out", "idx", "counts"})
	sumBatch(m, ldm, nc, nin, nout, l, rowSums{})
}

// FlipRowsBatch is FlipRows for nc chains at once: for every chain c < nc
// it adds to out[c*nout : (c+1)*nout] the rows of m named by
// on[c*nin : c*nin+non[c]] and subtracts the sum of those named by
// off[c*nin : c*nin+noff[c]], summed in tmp[c*nout : (c+1)*nout] (scratch,
// nc*nout floats). Each chain's result is that of FlipRows bit for bit; on
// tiers with blocked row sums the two lists of all chains share one pass
// over m. The lists are checked as SumRowsBatch checks its own.
func FlipRowsBatch(out, tmp, m []float32, ldm, nc, nin, nout int, on, non, off, noff []int32) {
	if nc <= 0 || nin <= 0 || nout <= 0 {
		return
	}
	a, b := rowSums{out, on, non}, rowSums{tmp, off, noff}
	checkBatch(m, ldm, nc, nin, nout, a, [3]string{"out", "on", "non"})
	checkBatch(m, ldm, nc, nin, nout, b, [3]string{"tmp", "off", "noff"})
	for c := 0; c < nc; c++ {
		if noff[c] > 0 {
			clear(tmp[c*nout : (c+1)*nout])
		}
	}
	sumBatch(m, ldm, nc, nin, nout, a, b)
	for c := 0; c < nc; c++ {
		if noff[c] > 0 {
			cur.axpy(out[c*nout:(c+1)*nout], -1, tmp[c*nout:(c+1)*nout])
		}
	}
}

// checkBatch checks the lengths and lists of a batch of row sums (nc, nin,
// nout > 0), whose out, idx and counts the caller calls names: every list
// strictly increasing and naming rows of m.
func checkBatch(m []float32, ldm, nc, nin, nout int, l rowSums, names [3]string) {
	need(names[0], len(l.out), nc*nout)
	need(names[1], len(l.idx), nc*nin)
	need(names[2], len(l.counts), nc)
	if ldm < nout {
		panic(fmt.Sprintf("kernel: m stride %d < row length %d", ldm, nout))
	}
	for c := 0; c < nc; c++ {
		k := int(l.counts[c])
		if k < 0 || k > nin {
			panic(fmt.Sprintf("kernel: %s: chain %d count %d outside [0, %d]", names[2], c, k, nin))
		}
		if k == 0 {
			continue
		}
		// Increasing, so the first and the last bound them all.
		ids := l.idx[c*nin : c*nin+k]
		for i := 1; i < len(ids); i++ {
			if ids[i] <= ids[i-1] {
				panic(fmt.Sprintf("kernel: %s: chain %d rows not increasing (%d after %d)", names[1], c, ids[i], ids[i-1]))
			}
		}
		if ids[0] < 0 || int(ids[k-1])*ldm+nout > len(m) {
			panic(fmt.Sprintf("kernel: %s: m rows %d…%d out of range (len %d, stride %d)", names[1], ids[0], ids[k-1], len(m), ldm))
		}
	}
}

// sumBatch sums the checked lists a and (unless zero) b: blocked on tiers
// that have it, else chain by chain with sumRows.
func sumBatch(m []float32, ldm, nc, nin, nout int, a, b rowSums) {
	if cur.sumRowsBlocked != nil {
		cur.sumRowsBlocked(m, ldm, nc, nin, nout, a, b)
		return
	}
	for _, l := range [2]rowSums{a, b} {
		if l.counts == nil {
			continue
		}
		for c := 0; c < nc; c++ {
			if l.counts[c] > 0 {
				cur.sumRows(l.out[c*nout:(c+1)*nout], m, ldm, l.idx[c*nin:c*nin+int(l.counts[c])], nout)
			}
		}
	}
}

func checkRows(what string, m []float32, stride int, idx []int32, n int) {
	if stride < n {
		panic(fmt.Sprintf("kernel: %s stride %d < row length %d", what, stride, n))
	}
	// Row j fits iff 0 ≤ j ≤ last: one unsigned compare a row (a negative
	// j is a huge uint). With m shorter than one row, none fits.
	if len(idx) == 0 {
		return
	}
	if len(m) < n {
		panic(fmt.Sprintf("kernel: %s row %d out of range (len %d, stride %d)", what, idx[0], len(m), stride))
	}
	last := uint((len(m) - n) / max(stride, 1))
	for _, j := range idx {
		if uint(int(j)) > last {
			panic(fmt.Sprintf("kernel: %s row %d out of range (len %d, stride %d)", what, j, len(m), stride))
		}
	}
}

// Changes compares a binary state s with the state ref a product was
// computed for: it writes the positions of the ones of s to idx, of the
// units switched on (s ≠ 0, ref = 0) to on and of those switched off
// (s = 0, ref ≠ 0) to off, all increasing, sets ref = s, and returns the
// three counts. Each list needs len(s) entries; the assembly tiers may
// overwrite a list's entries past its count (never past len(s)), as
// Indices may. Both Gibbs samplers (engine, AIS) use it to choose between
// a fresh product and FlipRows.
func Changes(idx, on, off []int32, ref, s []float32) (ones, non, noff int) {
	n := len(s)
	need("ref", len(ref), n)
	need("idx", len(idx), n)
	need("on", len(on), n)
	need("off", len(off), n)
	if n == 0 {
		return 0, 0, 0
	}
	return cur.changes(idx[:n], on[:n], off[:n], ref[:n], s)
}

// changesVia builds Changes from a tier's indices and axpy, for tiers
// without their own: the flips are the non-zeros of ref − s (+1 off, −1
// on), listed in on and split in place.
func changesVia(t *impl) func(idx, on, off []int32, ref, s []float32) (int, int, int) {
	return func(idx, on, off []int32, ref, s []float32) (int, int, int) {
		ones := t.indices(idx, s)
		t.axpy(ref, -1, s)
		nf := t.indices(on, ref)
		non, noff := 0, 0
		for _, j := range on[:nf] {
			b := int(s[j]) // branch-free split: 1 = switched on
			on[non] = j    // non ≤ the read position: in place is safe
			off[noff] = j
			non += b
			noff += 1 - b
		}
		copy(ref, s)
		return ones, non, noff
	}
}

// FlipRows brings out (n floats), bias + the sum of the rows of m (row j at
// m[j*stride]) named by the ones of a binary state, up to date after the
// units in on switched on and those in off switched off (as Changes lists
// them): it adds the rows of on and subtracts the sum of the rows of off
// (one subtraction, not one per row). tmp needs n floats.
func FlipRows(out, m []float32, stride int, on, off []int32, tmp []float32, n int) {
	SumRows(out, m, stride, on, n)
	if len(off) > 0 {
		t := tmp[:n]
		clear(t)
		SumRows(t, m, stride, off, n)
		Axpy(out[:n], -1, t)
	}
}

// binaryTile is the column width of the tiles AffineBinary works in: every
// chain of a block sums its rows of one tile of m before the next tile, so
// the tile (nin × binaryTile floats) is read from cache, not memory. The
// blocked row sums (AVX-512) take at most 128 columns a tile.
const binaryTile = 128

// binaryBlockRows bounds the height of the row blocks of the blocked row
// sums (the blocks are made equal, see blockRows): every chain adds its
// rows of one block × tile before the next block, so the block (112 rows ×
// 128 columns = 56 KB, about L1) is read from cache by all the chains that
// use it.
var binaryBlockRows = 112

// denseThreshold is the fraction of ones above which AffineBinary uses the
// dense product on tiers that sum rows chain by chain (NEON): above it an
// FMA pass over every input costs less than summing the rows of the ones
// (BenchmarkKernel/*/binary against dense).
var denseThreshold = 0.35

// denseThresholdBlocked is denseThreshold for tiers with blocked row sums
// (AVX-512, AVX2, generic), which stay faster than the dense product up to
// a higher fraction of ones (BenchmarkKernel/*/binary against dense).
var denseThresholdBlocked = 0.55

// PadStride is the row stride (in floats) at which the binary-state product
// reads rows of n floats fastest: a whole number of 64-byte cache lines, so
// that no load of a row spans two lines (with n = 500, three rows in four
// start mid-line), and an odd number of them, so that a column tile of
// consecutive rows spreads over all of L1's sets (a 2 KB stride, 512
// floats, puts every row of a tile in the same sets). PadStride(500) = 528,
// PadStride(784) = 784. Rows of m should also start 64-byte aligned.
func PadStride(n int) int {
	s := (max(n, 1) + 15) &^ 15
	if s/16%2 == 0 {
		s += 16
	}
	return s
}

// AffineBinary is Affine for binary inputs (every in value 0 or 1). It
// writes each chain's ones to idx (chain c's at idx[c*nin : c*nin+counts[c]],
// increasing) and sums the rows of m they name, in column tiles shared by
// the block; when more than 35% (55% on tiers with blocked row sums) of the
// inputs are ones it uses the dense product instead. idx needs nc*nin entries, counts nc. It returns
// the total number of ones. Callers keep idx and counts for the gradient.
func AffineBinary(out, bias, in, m []float32, nc, nin, nout int, idx, counts []int32) int {
	return AffineBinaryStride(out, bias, in, m, nout, nc, nin, nout, idx, counts)
}

// AffineBinaryStride is AffineBinary with the rows of m ldm ≥ nout floats
// apart (row j at m[j*ldm : j*ldm+nout]), such as PadStride(nout). With
// ldm ≠ nout it always sums rows (the dense product needs ldm = nout); the
// result is the same, every chain's rows being added in increasing order
// into its bias whichever schedule runs.
func AffineBinaryStride(out, bias, in, m []float32, ldm, nc, nin, nout int, idx, counts []int32) int {
	if nc <= 0 {
		return 0
	}
	if ldm < nout {
		panic(fmt.Sprintf("kernel: m stride %d < row length %d", ldm, nout))
	}
	need("out", len(out), nc*nout)
	need("in", len(in), nc*nin)
	if nin > 0 && nout > 0 {
		need("m", len(m), (nin-1)*ldm+nout)
	}
	need("idx", len(idx), nc*nin)
	need("counts", len(counts), nc)
	if bias != nil {
		need("bias", len(bias), nout)
	}
	total := 0
	for c := 0; c < nc; c++ {
		counts[c] = 0
		if nin > 0 {
			counts[c] = int32(cur.indices(idx[c*nin:(c+1)*nin], in[c*nin:(c+1)*nin]))
		}
		total += int(counts[c])
	}
	if nout <= 0 {
		return total
	}
	if ldm == nout && binaryDense(total, nc*nin) {
		cur.affine(out[:nc*nout], bias, in[:nc*nin], m[:nin*nout], nc, nin, nout)
		return total
	}
	startRows(out, bias, nc, nout)
	if total == 0 {
		return 0
	}
	if cur.sumRowsBlocked != nil {
		cur.sumRowsBlocked(m, ldm, nc, nin, nout, rowSums{out, idx, counts}, rowSums{})
		return total
	}
	for t0 := 0; t0 < nout; t0 += binaryTile {
		tw := min(binaryTile, nout-t0)
		for c := 0; c < nc; c++ {
			if counts[c] == 0 {
				continue
			}
			cur.sumRows(out[c*nout+t0:c*nout+t0+tw], m[t0:], ldm, idx[c*nin:c*nin+int(counts[c])], tw)
		}
	}
	return total
}

// Aligned returns n zero floats starting on a 64-byte boundary (a cache
// line, one ZMM load), for matrices whose rows PadStride spaces out.
func Aligned(n int) []float32 {
	buf := make([]float32, n+15)
	off := int((64 - uintptr(unsafe.Pointer(&buf[0]))%64) % 64 / 4)
	return buf[off : off+n : off+n]
}
