package kernel

import (
	"math/rand/v2"
	"testing"
)

// TestAffineOnes: on every tier, the lists of Ones.Set name each chain's
// ones in increasing order, and AffineOnes equals, bit for bit, the sum
// written out in float32 (the bias, then the rows of the ones, in
// increasing order): at densities that take the row sums (0, 5%) and the
// dense product (90%, above every tier's threshold), with m's rows nout
// and PadStride(nout) floats apart, for several products sharing one
// Ones, writing nothing outside out.
func TestAffineOnes(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	forEachTier(t, withGeneric, func(im *impl) {
		for _, p := range []float64{0, 0.05, 0.9} {
			for _, nc := range []int{1, 7, 100} {
				for _, shape := range [][2]int{{1, 1}, {13, 64}, {500, 40}, {784, 65}} {
					nin, nout := shape[0], shape[1]
					in := binarySliceT(r, nc*nin, p)
					o := NewOnes(nc, nin)
					total := o.Set(in)
					ones := 0
					for c := 0; c < nc; c++ {
						k := 0
						for j := 0; j < nin; j++ {
							if in[c*nin+j] == 0 {
								continue
							}
							if k >= o.Count(c) || o.idx[c*nin+k] != int32(j) {
								t.Fatalf("p=%g nc=%d: chain %d's list is wrong at %d", p, nc, c, k)
							}
							k++
						}
						if k != o.Count(c) {
							t.Fatalf("chain %d: count %d, want %d", c, o.Count(c), k)
						}
						ones += k
					}
					if total != ones || o.Total() != ones {
						t.Fatalf("total %d (Total %d), want %d", total, o.Total(), ones)
					}
					for _, ldm := range []int{nout, PadStride(nout)} {
						m := make([]float32, (nin-1)*ldm+nout)
						for i := range m {
							m[i] = r.Float32()*2 - 1
						}
						for _, withBias := range []bool{true, false} {
							var bias []float32
							if withBias {
								bias = make([]float32, nout)
								for i := range bias {
									bias[i] = r.Float32()
								}
							}
							want := make([]float32, nc*nout)
							for c := 0; c < nc; c++ {
								for k := 0; k < nout; k++ {
									var acc float32
									if bias != nil {
										acc = bias[k]
									}
									for j := 0; j < nin; j++ {
										if in[c*nin+j] != 0 {
											acc += m[j*ldm+k]
										}
									}
									want[c*nout+k] = acc
								}
							}
							got, check := padded(t, r, nc*nout, 1, uni(-9, 9))
							AffineOnes(got, bias, in, m, ldm, nout, o)
							check("AffineOnes")
							for i := range want {
								if got[i] != want[i] {
									t.Fatalf("%s p=%g nc=%d %v ldm=%d bias=%v: out[%d] = %g, want %g",
										im.name, p, nc, shape, ldm, withBias, i, got[i], want[i])
								}
							}
						}
					}
				}
			}
		}
	})
}

// TestAffineOnesChecks: a stride below the row length, or an out, in or m
// too short for the lists' shape, panics instead of reaching the tiers.
func TestAffineOnesChecks(t *testing.T) {
	o := NewOnes(2, 3)
	o.Set([]float32{1, 0, 1, 0, 1, 1})
	ok := func() ([]float32, []float32, []float32) {
		return make([]float32, 2*4), []float32{1, 0, 1, 0, 1, 1}, make([]float32, 3*4)
	}
	for name, call := range map[string]func(){
		"stride": func() { out, in, m := ok(); AffineOnes(out, nil, in, m, 3, 4, o) },
		"out":    func() { out, in, m := ok(); AffineOnes(out[:7], nil, in, m, 4, 4, o) },
		"in":     func() { out, in, m := ok(); AffineOnes(out, nil, in[:5], m, 4, 4, o) },
		"m":      func() { out, in, m := ok(); AffineOnes(out, nil, in, m[:11], 4, 4, o) },
		"bias":   func() { out, in, m := ok(); AffineOnes(out, make([]float32, 3), in, m, 4, 4, o) },
		"set":    func() { o.Set(make([]float32, 5)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			call()
		}()
	}
	out, in, m := ok()
	AffineOnes(out, nil, in, m, 4, 4, o) // the valid call does not panic
}

// TestOnesSetChains: lists set chain range by chain range (as tasks set
// them), in any order, then tallied, are the lists and count of one Set;
// a range leaves the other chains' lists alone; a range outside the
// block panics.
func TestOnesSetChains(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	forEachTier(t, withGeneric, func(im *impl) {
		const nc, nin = 21, 70
		in := binarySliceT(r, nc*nin, 0.3)
		want := NewOnes(nc, nin)
		total := want.Set(in)
		got := NewOnes(nc, nin)
		got.Set(binarySliceT(r, nc*nin, 0.6)) // stale lists, overwritten below
		for _, rg := range [][2]int{{16, 21}, {0, 8}, {8, 16}} {
			got.SetChains(in, rg[0], rg[1])
		}
		if n := got.Tally(); n != total || got.Total() != total {
			t.Fatalf("%s: Tally %d (Total %d), want %d", im.name, n, got.Total(), total)
		}
		for c := 0; c < nc; c++ {
			if got.Count(c) != want.Count(c) {
				t.Fatalf("%s: chain %d has %d ones, want %d", im.name, c, got.Count(c), want.Count(c))
			}
			for k := 0; k < want.Count(c); k++ {
				if got.idx[c*nin+k] != want.idx[c*nin+k] {
					t.Fatalf("%s: chain %d's one %d at %d, want %d", im.name, c, k, got.idx[c*nin+k], want.idx[c*nin+k])
				}
			}
		}
		// A range sets only its chains.
		before := append([]int32(nil), got.counts...)
		got.SetChains(make([]float32, nc*nin), 3, 5)
		for c := 0; c < nc; c++ {
			if w := map[bool]int32{true: 0, false: before[c]}[c >= 3 && c < 5]; got.counts[c] != w {
				t.Fatalf("%s: after SetChains(3, 5) chain %d counts %d, want %d", im.name, c, got.counts[c], w)
			}
		}
	})
	for _, rg := range [][2]int{{-1, 2}, {0, 3}, {2, 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("SetChains(%d, %d) of 2 chains: no panic", rg[0], rg[1])
				}
			}()
			NewOnes(2, 3).SetChains(make([]float32, 6), rg[0], rg[1])
		}()
	}
}
