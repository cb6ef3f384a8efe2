package kernel

import "testing"

// TestForceRowSums: at 100% ones AffineBinary takes the dense product;
// under forceRowSums it sums rows instead, and restore brings the dense
// product back. A tier whose affine records its calls shows which path ran.
func TestForceRowSums(t *testing.T) {
	const nc, nin, nout = 2, 8, 5
	calls := 0
	spy := *generic
	spy.name = "spy"
	spy.affine = func(out, bias, in, m []float32, nc, nin, nout int) {
		calls++
		affineGeneric(out, bias, in, m, nc, nin, nout)
	}
	prev := cur
	cur = &spy
	defer func() { cur = prev }()

	in := make([]float32, nc*nin)
	for i := range in {
		in[i] = 1
	}
	m := make([]float32, nin*nout)
	for i := range m {
		m[i] = float32(i%7) - 3
	}
	want := make([]float32, nc*nout)
	for c := 0; c < nc; c++ {
		for o := 0; o < nout; o++ {
			for j := 0; j < nin; j++ {
				want[c*nout+o] += m[j*nout+o]
			}
		}
	}
	run := func(what string, wantCalls int) {
		t.Helper()
		calls = 0
		out := make([]float32, nc*nout)
		idx, counts := make([]int32, nc*nin), make([]int32, nc)
		if n := AffineBinary(out, nil, in, m, nc, nin, nout, idx, counts); n != nc*nin {
			t.Errorf("%s: %d ones, want %d", what, n, nc*nin)
		}
		if calls != wantCalls {
			t.Errorf("%s: %d dense products, want %d", what, calls, wantCalls)
		}
		for i := range want {
			if out[i] != want[i] {
				t.Fatalf("%s: out[%d] = %g, want %g", what, i, out[i], want[i])
			}
		}
	}
	run("default", 1)
	restore := forceRowSums()
	run("forceRowSums", 0)
	restore()
	run("restored", 1)
}
