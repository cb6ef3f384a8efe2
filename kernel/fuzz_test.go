package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Fuzz targets that compare every assembly tier this CPU runs (avx512 and
// avx2 on amd64, neon on arm64) with the generic reference, on shapes,
// offsets and values the fuzzer chooses. The differential tests (run on
// forEachTier) cover fixed grids of the same; these look between them.
// Tolerances are those of the differential tests. .ci/run fuzzes every
// target briefly; `go test -fuzz FuzzTiersSumRows ./kernel` runs one longer.

// fuzzValue maps a byte to a float32 that is usually ordinary and sometimes
// one of the special inputs (±0, large, ±Inf): the kernels must not turn
// them into anything the reference does not.
func fuzzValue(r *rand.Rand, b byte) float32 {
	if b%8 == 0 {
		return specialInputs[int(b/8)%len(specialInputs)]
	}
	return 4*r.Float32() - 2
}

func FuzzTiersAffine(f *testing.F) {
	f.Add(uint64(1), uint8(8), uint8(13), uint8(33), true)
	f.Add(uint64(2), uint8(3), uint8(0), uint8(129), false)
	f.Add(uint64(3), uint8(17), uint8(40), uint8(7), true)
	f.Fuzz(func(t *testing.T, seed uint64, nc8, nin8, nout8 uint8, withBias bool) {
		nc, nin, nout := int(nc8%24)+1, int(nin8%64), int(nout8)+1
		forEachTier(t, asmOnly, func(im *impl) {
			r := rand.New(rand.NewPCG(seed, 1))
			off := int(seed % 4)
			in, _ := padded(t, r, nc*nin, off, bits01(0.5))
			for i := range in {
				if r.IntN(3) == 0 {
					in[i] = r.Float32()
				}
			}
			m, _ := padded(t, r, nin*nout, (off+1)%4, uni(-1, 1))
			var bias []float32
			if withBias {
				bias, _ = padded(t, r, nout, (off+2)%4, uni(-1, 1))
			}
			want := make([]float32, nc*nout)
			affineGeneric(want, bias, in, m, nc, nin, nout)
			got, check := padded(t, r, nc*nout, (off+3)%4, uni(-9, 9))
			im.affine(got, bias, in, m, nc, nin, nout)
			check(im.name + " affine")
			for i := range want {
				if !near(got[i], want[i], 1e-5*float32(nin+1)) {
					t.Fatalf("%s affine nc=%d nin=%d nout=%d: out[%d] = %g, want %g", im.name, nc, nin, nout, i, got[i], want[i])
				}
			}
		})
	})
}

// FuzzTiersSumRows: row sums (the binary-state products and the gradient)
// with any width, stride, repeated or unordered rows.
func FuzzTiersSumRows(f *testing.F) {
	f.Add(uint64(1), uint16(500), uint8(0), []byte{3, 1, 4, 1, 5, 9, 2, 6})
	f.Add(uint64(2), uint16(784), uint8(3), []byte{0})
	f.Add(uint64(3), uint16(17), uint8(1), []byte{})
	f.Fuzz(func(t *testing.T, seed uint64, n16 uint16, pad uint8, rowBytes []byte) {
		n := int(n16 % 1100)
		stride := n + int(pad%8)
		if stride == 0 {
			stride = 1
		}
		rows := 1 + int(seed%40)
		idx := make([]int32, len(rowBytes)%64)
		for i := range idx {
			idx[i] = int32(int(rowBytes[i]) % rows)
		}
		forEachTier(t, asmOnly, func(im *impl) {
			r := rand.New(rand.NewPCG(seed, 2))
			m, _ := padded(t, r, rows*stride, 0, uni(-1, 1))
			checkSumRows(t, r, im, m, stride, idx, n, int(seed%4))
		})
	})
}

// FuzzTiersSumRowsBlocked: the blocked row sums (tiers that have them)
// with any chain count (groups beyond 64), rows, columns (tiles and tails),
// stride, block height and states the fuzzer writes bit by bit; they must
// equal the generic ones exactly.
func FuzzTiersSumRowsBlocked(f *testing.F) {
	f.Add(uint64(1), uint8(8), uint16(784), uint16(500), uint8(28), uint8(96), []byte{0x11, 0x80, 0x03})
	f.Add(uint64(2), uint8(70), uint16(9), uint16(129), uint8(0), uint8(1), []byte{0xff})
	f.Fuzz(func(t *testing.T, seed uint64, nc8 uint8, nin16, nout16 uint16, pad, rows8 uint8, bits []byte) {
		nc, nin, nout := 1+int(nc8%80), 1+int(nin16%800), 1+int(nout16%600)
		ldm := nout + int(pad%40)
		defer forceBlockRows(1 + int(rows8))()
		r := rand.New(rand.NewPCG(seed, 3))
		m := make([]float32, nin*ldm)
		for i := range m {
			m[i] = r.Float32()*2 - 1
		}
		in := make([]float32, nc*nin)
		for i := range in {
			if len(bits) > 0 {
				in[i] = float32(bits[i/8%len(bits)] >> (i % 8) & 1)
			}
		}
		idx, counts := make([]int32, nc*nin), make([]int32, nc)
		for c := 0; c < nc; c++ {
			counts[c] = int32(indicesGeneric(idx[c*nin:(c+1)*nin], in[c*nin:(c+1)*nin]))
		}
		want := make([]float32, nc*nout)
		for i := range want {
			want[i] = r.Float32()
		}
		start := append([]float32(nil), want...)
		sumRowsBlockedGeneric(m, ldm, nc, nin, nout, rowSums{want, idx, counts}, rowSums{})
		forEachTier(t, asmOnly, func(im *impl) {
			if im.sumRowsBlocked == nil {
				return
			}
			got, check := padded(t, r, len(want), int(seed%4), uni(0, 0))
			copy(got, start)
			im.sumRowsBlocked(m, ldm, nc, nin, nout, rowSums{got, idx, counts}, rowSums{})
			check(im.name + " sumRowsBlocked")
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s nc=%d nin=%d nout=%d ldm=%d rows=%d: out[%d] = %g, want %g", im.name, nc, nin, nout, ldm, binaryBlockRows, i, got[i], want[i])
				}
			}
		})
	})
}

// FuzzTiersIndices: the positions of the non-zero states (bytes to 0, 1,
// NaN or −0) match the reference, and nothing is written past len(s).
func FuzzTiersIndices(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 1, 1, 0, 2})
	f.Add(make([]byte, 70))
	f.Fuzz(func(t *testing.T, b []byte) {
		n := len(b)
		s := make([]float32, n)
		for i, v := range b {
			s[i] = [4]float32{0, 1, float32(math.NaN()), float32(math.Copysign(0, -1))}[v%4]
		}
		want := make([]int32, n)
		k := indicesGeneric(want, s)
		forEachTier(t, asmOnly, func(im *impl) {
			got := make([]int32, n+4)
			for i := range got {
				got[i] = -7
			}
			if g := im.indices(got[:n], s); g != k || !slices.Equal(got[:k], want[:k]) || !slices.Equal(got[n:], []int32{-7, -7, -7, -7}) {
				t.Fatalf("%s indices %v: %d %v, want %d %v", im.name, b, g, got, k, want[:k])
			}
		})
	})
}

// FuzzTiersChanges: a state's ones and the units switched on and off, from
// states the fuzzer writes bit by bit (bit 0: s, bit 1: ref).
func FuzzTiersChanges(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 1, 1, 0, 2})
	f.Add(make([]byte, 70))
	f.Fuzz(func(t *testing.T, b []byte) {
		n := len(b)
		forEachTier(t, asmOnly, func(im *impl) {
			s, ref := make([]float32, n), make([]float32, n)
			for i, v := range b {
				s[i], ref[i] = float32(v&1), float32(v>>1&1)
			}
			wantRef := append([]float32(nil), ref...)
			var want, got [3][]int32
			for k := range want {
				want[k], got[k] = make([]int32, n), make([]int32, n+4)
				for i := range got[k] {
					got[k][i] = -7
				}
			}
			wo, wn, wf := changesGeneric(want[0], want[1], want[2], wantRef, s)
			o, on, off := im.changes(got[0][:n], got[1][:n], got[2][:n], ref, s)
			checkChanges(t, fmt.Sprintf("%s changes %v", im.name, b), got, want, [3]int{o, on, off}, [3]int{wo, wn, wf}, ref, s)
		})
	})
}

// FuzzTiersUpdates: the fused NCG, masked and dense updates on gradients
// the fuzzer writes (bytes to values, some special); the values must match
// the reference and a non-finite new weight must be reported exactly when
// the reference reports one.
func FuzzTiersUpdates(f *testing.F) {
	f.Add(uint64(1), []byte{1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 17, 18, 19})
	f.Add(uint64(2), []byte{0, 8, 16, 24, 32, 200})
	f.Fuzz(func(t *testing.T, seed uint64, gb []byte) {
		n := len(gb)
		const alpha, alphaA, gamma = 0.002, 0.01, 0.5
		forEachTier(t, asmOnly, func(im *impl) {
			r := rand.New(rand.NewPCG(seed, 3))
			off := int(seed % 4)
			w, _ := padded(t, r, n, off, uni(-1, 1))
			ap, _ := padded(t, r, n, off, uni(-0.2, 1.2))
			a, _ := padded(t, r, n, off, bits01(0.5))
			c, check := padded(t, r, n, off, uni(0, 0))
			g, _ := padded(t, r, n, off, uni(0, 0))
			for i, v := range gb {
				g[i] = fuzzValue(r, v)
				if math.Abs(float64(ap[i]-gamma)) < 0.05 { // keep the threshold clear of rounding
					ap[i] = gamma + 0.1
				}
			}
			g0 := clone(g)
			ww, wap, wa, wc, wg := clone(w), clone(ap), clone(a), clone(c), clone(g)
			wantBad := updateNCGGeneric(ww, wap, wa, wc, wg, alpha, alphaA, gamma) != 0
			gotBad := im.updateNCG(w, ap, a, c, g, alpha, alphaA, gamma) != 0
			check(im.name + " updateNCG")
			if gotBad != wantBad {
				t.Fatalf("%s updateNCG g=%v: non-finite reported %v, want %v", im.name, g0, gotBad, wantBad)
			}
			cmp := func(what string, got, want []float32) {
				t.Helper()
				for i := range want {
					// 1e-6 absolute or relative: large gradients make large weights.
					if !near(got[i], want[i], 1e-6*float32(math.Max(1, math.Abs(float64(want[i]))))) {
						t.Fatalf("%s %s g=%v: [%d] = %g, want %g", im.name, what, g0, i, got[i], want[i])
					}
				}
			}
			cmp("updateNCG w", w, ww)
			cmp("updateNCG ap", ap, wap)
			cmp("updateNCG a", a, wa)
			cmp("updateNCG c", c, wc)
			cmp("updateNCG g", g, wg)

			copy(g, g0)
			copy(wg, g0)
			wantBad = updateMaskedGeneric(ww, wa, wc, wg, alpha) != 0
			if gotBad = im.updateMasked(w, a, c, g, alpha) != 0; gotBad != wantBad {
				t.Fatalf("%s updateMasked g=%v: non-finite reported %v, want %v", im.name, g0, gotBad, wantBad)
			}
			cmp("updateMasked w", w, ww)
			cmp("updateMasked c", c, wc)

			copy(g, g0)
			copy(wg, g0)
			wantBad = updateDenseGeneric(ww, wc, wg, alpha) != 0
			if gotBad = im.updateDense(w, c, g, alpha) != 0; gotBad != wantBad {
				t.Fatalf("%s updateDense g=%v: non-finite reported %v, want %v", im.name, g0, gotBad, wantBad)
			}
			cmp("updateDense w", w, ww)
			cmp("updateDense c", c, wc)
		})
	})
}

// FuzzTiersSampling: Bernoulli sampling and the fused sigmoid + sampling
// draw the same numbers as the reference (the stream ends in the same
// state) and give the same states except where the draw is within 1e-6 of
// the probability.
func FuzzTiersSampling(f *testing.F) {
	f.Add(uint64(1), uint64(2), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17})
	f.Add(uint64(3), uint64(0), []byte{0, 8, 255})
	f.Fuzz(func(t *testing.T, seed, id uint64, pb []byte) {
		n := len(pb)
		forEachTier(t, asmOnly, func(im *impl) {
			r := rand.New(rand.NewPCG(seed, 4))
			pre := make([]float32, n)
			for i, v := range pb {
				pre[i] = 4 * fuzzValue(r, v)
			}
			s0 := NewStream(seed, id)
			wantP, gotS, checkS := checkSigmoidBernoulli(t, r, im, pre, s0, int(id%4), int(seed%4))

			// Bernoulli from the reference's probabilities: bit-exact.
			checkBernoulli(t, im, wantP, s0, gotS, checkS)
		})
	})
}

// FuzzTiersSoftmax: categorical sampling with the groups and inputs the
// fuzzer chooses (one group of 1–16 units per byte of sizes, inputs from
// vals through fuzzValue, scaled by 1, 8 or 64, so that ±Inf, ±0, large
// values and NaN appear), every assembly tier and the Go driver on the
// generic kernels against the generic code bit for bit
// (checkSoftmaxTier: probabilities, states, the stream, in place).
func FuzzTiersSoftmax(f *testing.F) {
	f.Add(uint64(1), []byte{2, 2, 2, 2}, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add(uint64(2), []byte{0, 5, 11, 1, 0, 0, 15}, []byte{0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128})
	f.Add(uint64(7), []byte{15, 15, 15}, []byte{})
	f.Fuzz(func(t *testing.T, seed uint64, sizes, vals []byte) {
		if len(sizes) > 300 {
			sizes = sizes[:300]
		}
		k := make([]int, len(sizes))
		for i, b := range sizes {
			k[i] = 1 + int(b%16)
		}
		groups := groupsOf(k)
		n := int(groups[len(groups)-1])
		r := rand.New(rand.NewPCG(seed, 5))
		scale := []float32{1, 8, 64}[seed%3]
		pre, _ := padded(t, r, n, int(seed%4), uni(0, 0))
		for i := range pre {
			b := byte(r.IntN(256))
			if i < len(vals) {
				b = vals[i]
			}
			pre[i] = scale * fuzzValue(r, b)
		}
		for _, im := range softmaxTiers() {
			checkSoftmaxTier(t, r, im, pre, groups, NewStream(seed, 6), int(seed/4%4), int(seed/16%4))
		}
	})
}
