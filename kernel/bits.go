package kernel

import (
	"math"
	"math/bits"
)

// Binary states packed into bits, for the product of two blocks of
// binary states: Σ_c s₁[c][i]·s₂[c][o] over nc chains is the number of
// chains in which unit i of the first and unit o of the second are both
// on, one AND and one population count per 64 chains. A DBM's negative
// statistics between two layers of 0/1 states are such products. (sparse.go's
// packBits is the one-word form, up to 32 chains a unit, for the lanes
// of the sparse products.)

// BitWords is the number of 64-bit words PackBits uses for nc chains.
func BitWords(nc int) int { return (nc + 63) / 64 }

// PackBits packs the binary states of n units of nc chains, word-major:
//
//	for c < nc, u < n: bit c%64 of bits[(c/64)*ldb+u] = (s[c*lds+u] != 0)
//
// and the bits of chains past nc in the last word are 0. A state is on
// unless it is ±0, whatever its value (NaN is on). AVX-512 packs 16
// units a step.
func PackBits(bits []uint64, ldb int, s []float32, lds, nc, n int) {
	if nc <= 0 || n <= 0 {
		return
	}
	if ldb < n || lds < n {
		panic("kernel: PackBits strides below n")
	}
	words := BitWords(nc)
	need("bits", len(bits), (words-1)*ldb+n)
	need("s", len(s), (nc-1)*lds+n)
	cur.packBits64(bits, ldb, s, lds, nc, n)
}

func packBits64Generic(bits []uint64, ldb int, s []float32, lds, nc, n int) {
	for w := 0; w < BitWords(nc); w++ {
		row := bits[w*ldb : w*ldb+n]
		clear(row)
		for c := w * 64; c < min(nc, (w+1)*64); c++ {
			sh := uint(c % 64)
			for u, v := range s[c*lds : c*lds+n] {
				// Without a branch (the states are on half the time): x is 0
				// exactly for ±0, and x | −x has its top bit set otherwise.
				x := math.Float32bits(v) << 1
				row[u] |= uint64((x|-x)>>31) << sh
			}
		}
	}
}

// BothOn is the product of two blocks of binary states packed by
// PackBits (words words a unit, lda and ldb apart):
//
//	for i < ni, o < no: out[i*no+o] = Σ_{w<words} popcount(a[w*lda+i] & b[w*ldb+o])
//
// the same values as AffineBinary of the states (exact integers in
// float32 up to 2²⁴ chains). AVX-512 CPUs with VPOPCNTDQ count 16 units
// of b a step (VPOPCNTQ), AVX2 8 (a nibble table, VPSHUFB); NEON uses
// math/bits (CNT).
func BothOn(out []float32, a []uint64, lda int, b []uint64, ldb, words, ni, no int) {
	if ni <= 0 || no <= 0 {
		return
	}
	if words <= 0 || lda < ni || ldb < no {
		panic("kernel: BothOn needs words ≥ 1 and strides of at least ni, no")
	}
	need("out", len(out), ni*no)
	need("a", len(a), (words-1)*lda+ni)
	need("b", len(b), (words-1)*ldb+no)
	cur.bothOn(out[:ni*no], a, lda, b, ldb, words, ni, no)
}

func bothOnGeneric(out []float32, a []uint64, lda int, b []uint64, ldb, words, ni, no int) {
	bothOnCols(out, no, a, lda, b, ldb, words, ni, 0, no)
}

// bothOnCols is BothOn for units o0 ≤ o < o1 of b, out's rows ldo apart:
// the counts of two words at a time summed as integers, then converted
// (the same exact values as one word at a time).
func bothOnCols(out []float32, ldo int, a []uint64, lda int, b []uint64, ldb, words, ni, o0, o1 int) {
	for i := 0; i < ni; i++ {
		o := out[i*ldo+o0 : i*ldo+o1]
		clear(o)
		w := 0
		for ; w+1 < words; w += 2 {
			a0, a1 := a[w*lda+i], a[(w+1)*lda+i]
			b0, b1 := b[w*ldb+o0:w*ldb+o1], b[(w+1)*ldb+o0:(w+1)*ldb+o1]
			for k := range o {
				o[k] += float32(bits.OnesCount64(a0&b0[k]) + bits.OnesCount64(a1&b1[k]))
			}
		}
		if w < words {
			aw := a[w*lda+i]
			for k, x := range b[w*ldb+o0 : w*ldb+o1] {
				o[k] += float32(bits.OnesCount64(aw & x))
			}
		}
	}
}
