package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPackBits checks every tier's word-major bits against the states
// bit by bit, with the strides and the unused bits of the last word.
func TestPackBits(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	forEachTier(t, withGeneric, func(im *impl) {
		for _, nc := range []int{1, 63, 64, 65, 100, 130} {
			for _, n := range []int{1, 15, 16, 17, 40} {
				lds, ldb := n+3, n+5
				s := make([]float32, (nc-1)*lds+n)
				for i := range s {
					switch r.IntN(4) {
					case 0:
						s[i] = 1
					case 1:
						s[i] = -2.5 // any value but ±0 is on
					case 2:
						s[i] = float32(math.Copysign(0, -1))
					case 3:
						if r.IntN(4) == 0 {
							s[i] = float32(math.NaN())
						}
					}
				}
				words := BitWords(nc)
				bits := make([]uint64, (words-1)*ldb+n)
				for i := range bits {
					bits[i] = ^uint64(0) // PackBits sets every bit of its units
				}
				PackBits(bits, ldb, s, lds, nc, n)
				for w := 0; w < words; w++ {
					for u := 0; u < n; u++ {
						for k := 0; k < 64; k++ {
							c := w*64 + k
							want := c < nc && s[c*lds+u] != 0
							if got := bits[w*ldb+u]>>k&1 == 1; got != want {
								t.Fatalf("%s nc=%d n=%d: chain %d unit %d: bit %v, want %v", im.name, nc, n, c, u, got, want)
							}
						}
					}
					for u := n; u < ldb && w+1 < words; u++ {
						if bits[w*ldb+u] != ^uint64(0) {
							t.Fatalf("%s nc=%d n=%d: word %d's gap at %d written", im.name, nc, n, w, u)
						}
					}
				}
			}
		}
	})
}

// TestBothOn checks every tier's BothOn against the product of the 0/1
// states written out: the number of chains in which both units are on.
func TestBothOn(t *testing.T) {
	r := rand.New(rand.NewPCG(83, 84))
	forEachTier(t, withGeneric, func(im *impl) {
		for _, nc := range []int{1, 64, 65, 100, 130, 200} {
			for _, sh := range [][2]int{{1, 1}, {3, 15}, {5, 16}, {7, 17}, {9, 40}, {2, 1000}} {
				ni, no := sh[0], sh[1]
				p := []float32{0.1, 0.5, 0.9}[(nc+ni)%3]
				s1, s2 := binarySliceT(r, nc*ni, float64(p)), binarySliceT(r, nc*no, float64(p))
				words := BitWords(nc)
				lda, ldb := ni+2, no+7
				a, b := make([]uint64, (words-1)*lda+ni), make([]uint64, (words-1)*ldb+no)
				PackBits(a, lda, s1, ni, nc, ni)
				PackBits(b, ldb, s2, no, nc, no)
				got, check := padded(t, r, ni*no, 1, uni(-9, 9))
				BothOn(got, a, lda, b, ldb, words, ni, no)
				check(im.name + " BothOn")
				for i := 0; i < ni; i++ {
					for o := 0; o < no; o++ {
						want := 0
						for c := 0; c < nc; c++ {
							if s1[c*ni+i] != 0 && s2[c*no+o] != 0 {
								want++
							}
						}
						if got[i*no+o] != float32(want) {
							t.Fatalf("%s nc=%d ni=%d no=%d: out[%d][%d] = %g, want %d", im.name, nc, ni, no, i, o, got[i*no+o], want)
						}
					}
				}
			}
		}
	})
}

func TestBothOnChecks(t *testing.T) {
	a, b := make([]uint64, 2*3), make([]uint64, 2*4)
	for name, call := range map[string]func(){
		"words": func() { BothOn(make([]float32, 12), a, 3, b, 4, 0, 3, 4) },
		"lda":   func() { BothOn(make([]float32, 12), a, 2, b, 4, 2, 3, 4) },
		"out":   func() { BothOn(make([]float32, 11), a, 3, b, 4, 2, 3, 4) },
		"a":     func() { BothOn(make([]float32, 12), a[:5], 3, b, 4, 2, 3, 4) },
		"b":     func() { BothOn(make([]float32, 12), a, 3, b[:7], 4, 2, 3, 4) },
		"pack":  func() { PackBits(make([]uint64, 3), 3, make([]float32, 5), 3, 2, 3) },
		"bits":  func() { PackBits(make([]uint64, 2), 3, make([]float32, 6), 3, 2, 3) },
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
	BothOn(make([]float32, 12), a, 3, b, 4, 2, 3, 4) // the valid call does not panic
}
