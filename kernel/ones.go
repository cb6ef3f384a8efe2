package kernel

import "fmt"

// Ones holds the positions of the ones of a block of binary states (nc
// chains of nin units, every value 0 or 1), listed once and read by every
// product with the block ([AffineOnes]). The lists are written only by
// [Ones.Set], so they are valid for its shape, and the products trust them.
type Ones struct {
	nc, nin, total int
	idx, counts    []int32
}

// NewOnes returns the lists of a block of nc chains of nin units, none set
// yet (every chain without ones).
func NewOnes(nc, nin int) *Ones {
	if nc < 0 || nin < 0 {
		panic(fmt.Sprintf("kernel: NewOnes(%d, %d)", nc, nin))
	}
	return &Ones{nc: nc, nin: nin, idx: make([]int32, nc*nin), counts: make([]int32, nc)}
}

// Set lists the ones of the block in (nc×nin, every value 0 or 1; a
// value other than 0 counts as a one) and returns how many there are.
func (o *Ones) Set(in []float32) int {
	o.SetChains(in, 0, o.nc)
	return o.Tally()
}

// SetChains lists the ones of chains c0…c1−1 of the block in (nc×nin, as
// for Set) and leaves the other chains' lists as they are, so that tasks
// can list disjoint chains at once; [Ones.Tally] then counts the ones of
// every chain for the products.
func (o *Ones) SetChains(in []float32, c0, c1 int) {
	need("in", len(in), o.nc*o.nin)
	if c0 < 0 || c1 > o.nc || c0 > c1 {
		panic(fmt.Sprintf("kernel: SetChains chains %d…%d of %d", c0, c1, o.nc))
	}
	for c := c0; c < c1; c++ {
		k := 0
		if o.nin > 0 {
			k = cur.indices(o.idx[c*o.nin:(c+1)*o.nin], in[c*o.nin:(c+1)*o.nin])
		}
		o.counts[c] = int32(k)
	}
}

// Tally sets the block's count of ones from every chain's list, after
// SetChains, and returns it.
func (o *Ones) Tally() int {
	o.total = 0
	for _, k := range o.counts {
		o.total += int(k)
	}
	return o.total
}

// Total is the number of ones Set found.
func (o *Ones) Total() int { return o.total }

// Count is the number of ones of chain c.
func (o *Ones) Count(c int) int { return int(o.counts[c]) }

// AffineOnes is AffineBinaryStride for states whose ones o lists (set
// from in, nc×nin): for c < nc, k < nout,
//
//	out[c*nout+k] = bias[k] + Σ_{j<nin} in[c*nin+j] * m[j*ldm+k]
//
// (a nil bias is zero), by the dense product when the ones are dense
// enough for it to be faster and ldm = nout, else by summing the listed
// rows of m; both add each chain's rows in increasing order, so the
// result is the same. Calls with the same o share its lists: a product
// of one block with many column tiles of a matrix lists the ones once.
func AffineOnes(out, bias, in, m []float32, ldm, nout int, o *Ones) {
	nc, nin := o.nc, o.nin
	if nc == 0 || nout <= 0 {
		return
	}
	if ldm < nout {
		panic(fmt.Sprintf("kernel: m stride %d < row length %d", ldm, nout))
	}
	need("out", len(out), nc*nout)
	need("in", len(in), nc*nin)
	if nin > 0 {
		need("m", len(m), (nin-1)*ldm+nout)
	}
	if bias != nil {
		need("bias", len(bias), nout)
	}
	if ldm == nout && binaryDense(o.total, nc*nin) {
		cur.affine(out[:nc*nout], bias, in[:nc*nin], m[:nin*nout], nc, nin, nout)
		return
	}
	startRows(out, bias, nc, nout)
	if o.total == 0 {
		return
	}
	sumBatch(m, ldm, nc, nin, nout, rowSums{out, o.idx, o.counts}, rowSums{})
}

// binaryDense reports whether a binary product with total ones among n
// inputs runs faster as the dense product on the current tier: above
// denseThreshold of ones (denseThresholdBlocked on tiers with blocked row
// sums) an FMA pass over every input costs less than adding the rows of
// the ones.
func binaryDense(total, n int) bool {
	threshold := denseThreshold
	if cur.sumRowsBlocked != nil {
		threshold = denseThresholdBlocked
	}
	return float64(total) > threshold*float64(n)
}
