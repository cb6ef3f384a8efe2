package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Differential tests of the index lists and of the products kept up to
// date by the units that changed (Indices, Changes, FlipRows).

// TestChanges: the lists and counts of every tier equal the reference's,
// ref ends equal to s, and nothing is written outside the slices.
func TestChanges(t *testing.T) {
	forEachTier(t, asmOnly, func(im *impl) {
		r := rand.New(rand.NewPCG(25, 26))
		for _, n := range lengths() {
			for _, p := range []float64{0, 0.13, 0.5, 1} {
				for _, pflip := range []float64{0, 0.1, 0.5, 1} {
					s, checkS := padded(t, r, n, n%4, bits01(p))
					ref, checkRef := padded(t, r, n, (n+1)%4, bits01(0))
					for i := range ref {
						ref[i] = s[i]
						if r.Float64() < pflip {
							ref[i] = 1 - s[i]
						}
					}
					wantRef := append([]float32(nil), ref...)
					var want [3][]int32
					for k := range want {
						want[k] = make([]int32, n)
					}
					wo, wn, wf := changesGeneric(want[0], want[1], want[2], wantRef, s)
					var got [3][]int32
					for k := range got {
						got[k] = make([]int32, n+4)
						for i := range got[k] {
							got[k][i] = -7
						}
					}
					o, on, off := im.changes(got[0][:n], got[1][:n], got[2][:n], ref, s)
					checkChanges(t, fmt.Sprintf("%s changes n=%d p=%g flip=%g", im.name, n, p, pflip), got, want, [3]int{o, on, off}, [3]int{wo, wn, wf}, ref, s)
					checkS(im.name + " changes s")
					checkRef(im.name + " changes ref")
				}
			}
		}
	})
}

// checkChanges compares a tier's Changes (lists got, of length n+4 filled
// with −7 beyond n, and counts) with the reference's, and checks that ref
// has become s.
func checkChanges(t testing.TB, what string, got, want [3][]int32, counts, wantCounts [3]int, ref, s []float32) {
	t.Helper()
	if counts != wantCounts {
		t.Fatalf("%s: counts %v, want %v", what, counts, wantCounts)
	}
	n := len(s)
	for k, c := range wantCounts {
		for i := 0; i < c; i++ {
			if got[k][i] != want[k][i] {
				t.Fatalf("%s: list %d [%d] = %d, want %d", what, k, i, got[k][i], want[k][i])
			}
		}
		for i := n; i < len(got[k]); i++ {
			if got[k][i] != -7 {
				t.Fatalf("%s: list %d written past its end", what, k)
			}
		}
	}
	for i := range ref {
		if ref[i] != s[i] {
			t.Fatalf("%s: ref[%d] = %g, want s = %g", what, i, ref[i], s[i])
		}
	}
}

func TestIndices(t *testing.T) {
	forEachTier(t, asmOnly, func(im *impl) {
		r := rand.New(rand.NewPCG(5, 6))
		for _, n := range lengths() {
			for _, p := range []float64{0, 0.13, 0.5, 1} {
				s, _ := padded(t, r, n, n%4, bits01(p))
				want := make([]int32, n)
				got := make([]int32, n+4)
				for i := range got {
					got[i] = -7
				}
				k := indicesGeneric(want, s)
				if g := im.indices(got[:n], s); g != k {
					t.Fatalf("%s indices n=%d p=%g: count %d, want %d", im.name, n, p, g, k)
				}
				for i := 0; i < k; i++ {
					if got[i] != want[i] {
						t.Fatalf("%s indices n=%d: idx[%d] = %d, want %d", im.name, n, i, got[i], want[i])
					}
				}
				for i := n; i < len(got); i++ {
					if got[i] != -7 {
						t.Fatalf("%s indices n=%d: wrote past the end", im.name, n)
					}
				}
			}
		}
	})
}

// TestFlipRowsBatch: on every tier, FlipRowsBatch leaves each chain's
// sums as one FlipRows call does, bit for bit, for chains with rows
// switched on, off, both or neither, groups beyond 64 chains and padded
// rows, with the default row blocks and with blocks of 7 rows, and writes
// nothing outside out.
func TestFlipRowsBatch(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 48))
	type shape struct{ nc, nin, nout, rows int }
	var shapes []shape
	for _, c := range []shape{{1, 1, 1, 0}, {3, 9, 15, 0}, {7, 40, 129, 0}, {50, 784, 500, 0}, {50, 500, 784, 0}, {70, 60, 33, 0}} {
		shapes = append(shapes, c, shape{c.nc, c.nin, c.nout, 7})
	}
	forEachTier(t, withGeneric, func(im *impl) {
		tier := im.name
		for _, c := range shapes {
			unforce := func() {}
			if c.rows > 0 {
				unforce = forceBlockRows(c.rows)
			}
			ldm := PadStride(c.nout)
			m := Aligned(c.nin * ldm)
			for i := range m {
				m[i] = r.Float32()*2 - 1
			}
			on, off := make([]int32, c.nc*c.nin), make([]int32, c.nc*c.nin)
			non, noff := make([]int32, c.nc), make([]int32, c.nc)
			for k := 0; k < c.nc; k++ {
				// Changes lists the switches between two states.
				old := binarySliceT(r, c.nin, []float64{0, 0.1, 0.5, 0.9}[k%4])
				s := binarySliceT(r, c.nin, []float64{0, 0.2, 0.5, 0.03}[k/4%4])
				_, n1, n2 := changesGeneric(make([]int32, c.nin), on[k*c.nin:(k+1)*c.nin], off[k*c.nin:(k+1)*c.nin], old, s)
				non[k], noff[k] = int32(n1), int32(n2)
			}
			want, got, check := batchOut(t, r, c.nc*c.nout, c.nc%4)
			for k := 0; k < c.nc; k++ {
				FlipRows(want[k*c.nout:(k+1)*c.nout], m, ldm, on[k*c.nin:k*c.nin+int(non[k])], off[k*c.nin:k*c.nin+int(noff[k])], make([]float32, c.nout), c.nout)
			}
			tmp := make([]float32, c.nc*c.nout)
			for i := range tmp {
				tmp[i] = float32(math.NaN()) // scratch: its contents must not matter
			}
			FlipRowsBatch(got, tmp, m, ldm, c.nc, c.nin, c.nout, on, non, off, noff)
			unforce()
			check(fmt.Sprintf("%s FlipRowsBatch %+v", tier, c))
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s %+v: out[%d] = %g, want %g", tier, c, i, got[i], want[i])
				}
			}
		}
	})
}

// TestFlipRows: updating a row sum by the flipped units gives the fresh sum
// of the new state (to float32 rounding), with and without padded rows.
func TestFlipRows(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, shape := range [][3]int{{40, 24, 24}, {784, 500, 512}, {500, 784, 784}, {7, 3, 5}} {
		nin, n, stride := shape[0], shape[1], shape[2]
		m := make([]float32, (nin-1)*stride+n)
		for i := range m {
			m[i] = r.Float32()*2 - 1
		}
		fresh := func(s []float32) []float32 {
			out := make([]float32, n)
			for j, v := range s {
				if v != 0 {
					for o := 0; o < n; o++ {
						out[o] += m[j*stride+o]
					}
				}
			}
			return out
		}
		for _, pflip := range []float64{0, 0.05, 0.5, 1} {
			ref := binarySliceT(r, nin, 0.3)
			s := append([]float32(nil), ref...)
			var flip []int32
			for j := range s {
				if r.Float64() < pflip {
					s[j] = 1 - s[j]
					flip = append(flip, int32(j))
				}
			}
			out := fresh(ref)
			idx, on, off := make([]int32, nin), make([]int32, nin), make([]int32, nin)
			_, non, noff := Changes(idx, on, off, append([]float32(nil), ref...), s)
			if non+noff != len(flip) {
				t.Fatalf("%v: Changes found %d+%d flips, want %d", shape, non, noff, len(flip))
			}
			FlipRows(out, m, stride, on[:non], off[:noff], make([]float32, n), n)
			want := fresh(s)
			for o := range want {
				if !near(out[o], want[o], 1e-4) {
					t.Fatalf("%v, %d flips: out[%d] = %g, want %g", shape, len(flip), o, out[o], want[o])
				}
			}
		}
	}
}
