package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAffineSigmoid checks every tier's AffineSigmoid against the mean
// field's step written out in float64 (the sums of products plus add,
// through 1/(1+e^−x)), and against the tier's own Affine, Axpy and Sigmoid
// in turn bit for bit (the engine's results must not depend on which path
// a tier takes); rows of out are written on their first nout floats only.
func TestAffineSigmoid(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	forEachTier(t, withGeneric, func(im *impl) {
		for _, nc := range []int{1, 5, 6, 7, 13, 100} {
			for _, nout := range []int{1, 16, 17, 40, 64, 65, 130} {
				for _, nin := range []int{0, 1, 13, 300} {
					in := make([]float32, nc*nin)
					for i := range in {
						in[i] = r.Float32()
					}
					m := make([]float32, nin*nout)
					for i := range m {
						m[i] = (r.Float32()*2 - 1) * 0.2
					}
					for _, ld := range [][2]int{{nout, 0}, {nout + 37, nout}, {nout + 3, nout + 5}} {
						ldo, lda := ld[0], ld[1]
						add := make([]float32, (nc-1)*lda+nout)
						for i := range add {
							add[i] = r.Float32()*8 - 4
						}
						what := fmt.Sprintf("%s nc=%d nin=%d nout=%d ldo=%d lda=%d", im.name, nc, nin, nout, ldo, lda)
						n := (nc-1)*ldo + nout
						got, check := padded(t, r, n, 1, func(*rand.Rand) float32 { return guard })
						tmp := make([]float32, nc*nout)
						var next []float32 // nothing, or a slice to prefetch
						if ldo != nout {
							next = m
						}
						AffineSigmoid(got, ldo, add, lda, in, m, next, tmp, nc, nin, nout)
						check(what)
						// The tier's own kernels in turn.
						same := make([]float32, nc*nout)
						im.affine(same, nil, in, m, nc, nin, nout)
						for c := 0; c < nc; c++ {
							p := same[c*nout : (c+1)*nout]
							im.axpy(p, 1, add[c*lda:c*lda+nout])
							im.sigmoid(p, p)
						}
						for c := 0; c < nc; c++ {
							for o := 0; o < ldo && c*ldo+o < n; o++ {
								g := got[c*ldo+o]
								if o >= nout {
									if g != guard {
										t.Fatalf("%s: out[%d] (gap of row %d) written", what, c*ldo+o, c)
									}
									continue
								}
								x := float64(add[c*lda+o])
								for j := 0; j < nin; j++ {
									x += float64(in[c*nin+j]) * float64(m[j*nout+o])
								}
								want := 1 / (1 + math.Exp(-x))
								if math.Abs(float64(g)-want) > 2e-6*float64(nin+1) {
									t.Fatalf("%s: out[%d][%d] = %g, want %g", what, c, o, g, want)
								}
								if math.Float32bits(g) != math.Float32bits(same[c*nout+o]) {
									t.Fatalf("%s: out[%d][%d] = %g, Affine+Axpy+Sigmoid give %g", what, c, o, g, same[c*nout+o])
								}
							}
						}
					}
				}
			}
		}
	})
}

func TestAffineSigmoidChecks(t *testing.T) {
	ok := func() (out, add, in, m, tmp []float32) {
		return make([]float32, 5+4), make([]float32, 4), make([]float32, 2*3), make([]float32, 3*4), make([]float32, 2*4)
	}
	for name, call := range map[string]func(){
		"ldo": func() { out, add, in, m, tmp := ok(); AffineSigmoid(out, 3, add, 0, in, m, nil, tmp, 2, 3, 4) },
		"lda": func() { out, add, in, m, tmp := ok(); AffineSigmoid(out, 5, add, 2, in, m, nil, tmp, 2, 3, 4) },
		"out": func() { out, add, in, m, tmp := ok(); AffineSigmoid(out[:8], 5, add, 0, in, m, nil, tmp, 2, 3, 4) },
		"add": func() { out, add, in, m, tmp := ok(); AffineSigmoid(out, 5, add, 4, in, m, nil, tmp, 2, 3, 4) },
		"in":  func() { out, add, in, m, tmp := ok(); AffineSigmoid(out, 5, add, 0, in[:5], m, nil, tmp, 2, 3, 4) },
		"m":   func() { out, add, in, m, tmp := ok(); AffineSigmoid(out, 5, add, 0, in, m[:11], nil, tmp, 2, 3, 4) },
		"tmp": func() { out, add, in, m, tmp := ok(); AffineSigmoid(out, 5, add, 0, in, m, nil, tmp[:7], 2, 3, 4) },
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
	out, add, in, m, tmp := ok()
	AffineSigmoid(out, 5, add, 0, in, m, nil, tmp, 2, 3, 4) // the valid call does not panic
}
