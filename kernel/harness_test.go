package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// The harness of the tier tests and the inputs they share. The
// differential tests (products, changes, elementwise, sampling, updates,
// sparse, momentum and fuzz _test.go files) run every tier this CPU
// supports through forEachTier against the generic reference, at many
// lengths (0 to beyond four times the widest unroll), slice offsets 0–3,
// with guard values around every output.

func TestMain(m *testing.M) {
	if err := Init(); err != nil {
		fmt.Println(err) // TestEnvVarChoice reads this line
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "kernel: tier %s, available %v\n", Tier(), Tiers())
	os.Exit(m.Run())
}

// optionalKernel names the impl fields a tier may leave nil: the NEON tier
// has no blocked row sums and runs the binary-state product with its own
// sumRows, chain by chain (the same sums in the same order), no gather
// instruction for GatherSum (its generic loop is what assembly would do),
// no categorical block kernels (one group a lane needs gathers and
// scatters): it builds SoftmaxSample and Softmax on its row kernels, and
// checks their groups with the Go loop; and the bit kernels (below).
var optionalKernel = map[string]bool{
	"sumRowsBlocked": true, "gatherSum": true,
	"softmaxSampleBlocks": true, "softmaxBlocks": true, "groupsValid": true,
	"bothOn": true, "packBits64": true,
}

// The NEON tier leaves the kernels of binary states packed into words
// (bothOn, packBits64) to Go: BothOn's Go loop is one population count
// per word, which math/bits compiles to NEON's CNT.

// tierSet is the tiers a test runs on.
type tierSet int

const (
	// asmOnly: the assembly tiers this CPU and build run; the test skips
	// where there are none (the generic code is then the only tier).
	asmOnly tierSet = iota
	// withGeneric: the assembly tiers, then generic.
	withGeneric
)

// forEachTier is the harness of the tier tests: it runs f on every tier of
// set that this CPU and build run, whatever NCG_KERNEL says, with that
// tier in use, so f may call the tier's kernels directly (im.affine) or
// through the exported functions, which dispatch to the tier in use. The
// tests hold each tier to the generic functions (affineGeneric, …), which
// no tier setting changes. The tier in use before is restored after each
// call of f, also when f fails the test.
func forEachTier(t testing.TB, set tierSet, f func(im *impl)) {
	var ts []*impl
	for _, im := range available {
		if im != generic {
			ts = append(ts, im)
		}
	}
	if len(ts) == 0 && set == asmOnly {
		t.Skip("no assembly tier on this CPU/build: the generic code is the only tier")
	}
	if set == withGeneric {
		ts = append(ts, generic)
	}
	for _, im := range ts {
		func() {
			prev := cur
			cur = im
			defer func() { cur = prev }()
			f(im)
		}()
	}
}

// lengths covers every tail up to and beyond four times the widest unroll
// (64 floats = 4 ZMM registers).
func lengths() []int {
	var ls []int
	for n := 0; n <= 300; n++ {
		ls = append(ls, n)
	}
	return append(ls, 500, 511, 512, 513, 784, 1023, 1025)
}

const guard = float32(-12345.5)

// padded returns a slice of length n at offset off inside a guarded buffer,
// and a check function that fails if anything outside was written.
func padded(t testing.TB, r *rand.Rand, n, off int, fill func(*rand.Rand) float32) ([]float32, func(string)) {
	buf := make([]float32, n+off+8)
	for i := range buf {
		buf[i] = guard
	}
	s := buf[off : off+n : off+n]
	for i := range s {
		s[i] = fill(r)
	}
	return s, func(what string) {
		t.Helper()
		for i := 0; i < off; i++ {
			if buf[i] != guard {
				t.Fatalf("%s: wrote before the slice at offset %d", what, i-off)
			}
		}
		for i := off + n; i < len(buf); i++ {
			if buf[i] != guard {
				t.Fatalf("%s: wrote past the end at %d (len %d)", what, i-off, n)
			}
		}
	}
}

func uni(lo, hi float32) func(*rand.Rand) float32 {
	return func(r *rand.Rand) float32 { return lo + (hi-lo)*r.Float32() }
}

func bits01(p float64) func(*rand.Rand) float32 {
	return func(r *rand.Rand) float32 { return b2f(r.Float64() < p) }
}

func near(got, want, tol float32) bool {
	if math.IsNaN(float64(want)) {
		return math.IsNaN(float64(got))
	}
	if math.IsInf(float64(want), 0) {
		return got == want
	}
	return float32(math.Abs(float64(got-want))) <= tol
}

func clone(s []float32) []float32 { return append([]float32(nil), s...) }

func binarySliceT(r *rand.Rand, n int, p float64) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = b2f(r.Float64() < p)
	}
	return s
}
