//go:build amd64 && !purego && !noasm && gc

package kernel

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

func hasAVX512() bool {
	return cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX512BW, cpuid.AVX512VL)
}

// TestAVX512KernelsComplete: the AVX-512 tier implements every kernel
// itself (no generic fallback), so the self-check covers all of them.
func TestAVX512KernelsComplete(t *testing.T) {
	v := reflect.ValueOf(avx512Kernels).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Kind() == reflect.Func && f.IsNil() {
			t.Errorf("avx512Kernels.%s is nil", v.Type().Field(i).Name)
		}
	}
}

// TestAVX512SelfCheck runs the start-up self-check and checks that its
// outcome decided the registration. The differential tests of
// kernel_test.go cover the tier in depth once it is registered.
func TestAVX512SelfCheck(t *testing.T) {
	if !hasAVX512() {
		t.Skip("this CPU lacks AVX512F+DQ+BW+VL: the AVX-512 kernels cannot run here (they are assembled and vetted only)")
	}
	start := time.Now()
	err := selfCheckAVX512()
	t.Logf("self-check took %v", time.Since(start))
	if err != nil {
		t.Fatalf("AVX-512 self-check failed: %v", err)
	}
	registered := false
	for _, name := range Tiers() {
		registered = registered || name == "avx512"
	}
	if !registered {
		t.Errorf("self-check passes but the avx512 tier is not registered (disabled: %v)", DisabledTiers())
	}
	if len(DisabledTiers()) != 0 {
		t.Errorf("DisabledTiers() = %v, want none", DisabledTiers())
	}
}

// TestSelfCheckHarness tests the self-check itself on any machine: it
// passes the generic kernels, catches broken ones (wrong numbers, stray
// writes, a stream not advanced, a missed NaN, a panic) and is cheap.
func TestSelfCheckHarness(t *testing.T) {
	good := func() *impl { c := *generic; c.name = "test"; return &c }

	// The cost is mostly the generic reference kernels, so this bounds the
	// start-up cost of the AVX-512 check too.
	best := time.Hour
	for range 5 {
		start := time.Now()
		if err := tierSelfCheck(good()); err != nil {
			t.Fatalf("self-check of the generic kernels: %v", err)
		}
		best = min(best, time.Since(start))
	}
	t.Logf("self-check of the generic kernels: %v", best)
	if best > 20*time.Millisecond {
		t.Errorf("self-check took %v; it runs at every start-up and must stay cheap", best)
	}

	broken := map[string]func(*impl){
		"sigmoid off by 2e-6": func(k *impl) {
			k.sigmoid = func(dst, src []float32) {
				sigmoidGeneric(dst, src)
				for i := range dst {
					dst[i] *= 1 + 2e-6
				}
			}
		},
		"softplus wrong at -Inf": func(k *impl) {
			k.softplus = func(dst, src []float32) {
				softplusGeneric(dst, src)
				for i, x := range src {
					if math.IsInf(float64(x), -1) {
						dst[i] = float32(math.NaN())
					}
				}
			}
		},
		// idx[count:len(s)] is scratch; one past len(s) is the caller's.
		// The self-check's idx sits between guard zones, so this write
		// lands in the guard zone after it.
		"indices writes past the end": func(k *impl) {
			k.indices = func(idx []int32, s []float32) int {
				n := indicesGeneric(idx, s)
				unsafe.Slice(&idx[0], len(idx)+1)[len(idx)] = 99
				return n
			}
		},
		"bernoulli skips the last block": func(k *impl) {
			k.bernoulli = func(dst, p []float32, s *Stream) {
				full := len(p) / Lanes * Lanes
				bernoulliGeneric(dst[:full], p[:full], s)
				clear(dst[full:len(p)])
			}
		},
		"sigmoidBernoulli writes state past the end": func(k *impl) {
			k.sigmoidBernoulli = func(prob, state, pre []float32, s *Stream) {
				sigmoidBernoulliGeneric(prob, state, pre, s)
				// A stray write such as assembly could make: past the
				// slice (into the self-check's guard zone).
				unsafe.Slice(&state[0], len(pre)+1)[len(pre)] = 1
			}
		},
		"sumRows ignores the last row": func(k *impl) {
			k.sumRows = func(out, m []float32, stride int, idx []int32, n int) {
				sumRowsGeneric(out, m, stride, idx[:len(idx)-1], n)
			}
		},
		"sumRowsBlocked skips the last chain": func(k *impl) {
			k.sumRowsBlocked = func(out, m []float32, ldm, nc, nin, nout int, idx, counts []int32) {
				sumRowsBlockedGeneric(out, m, ldm, nc-1, nin, nout, idx, counts)
			}
		},
		"addRows skips the first row": func(k *impl) {
			k.addRows = func(g []float32, n int, idx []int32, a float32, v []float32) {
				addRowsGeneric(g, n, idx[1:], a, v)
			}
		},
		"axpy with the wrong sign": func(k *impl) {
			k.axpy = func(y []float32, a float32, x []float32) { axpyGeneric(y, -a, x) }
		},
		"updateNCG misses NaN": func(k *impl) {
			k.updateNCG = func(w, ap, a, c, g []float32, alpha, alphaA, gamma float32) float32 {
				updateNCGGeneric(w, ap, a, c, g, alpha, alphaA, gamma)
				return 0
			}
		},
		"updateMasked leaves g": func(k *impl) {
			k.updateMasked = func(w, a, c, g []float32, alpha float32) float32 {
				keep := selfCheckClone(g)
				r := updateMaskedGeneric(w, a, c, g, alpha)
				copy(g, keep)
				return r
			}
		},
		"updateDense ignores c": func(k *impl) {
			k.updateDense = func(w, c, g []float32, alpha float32) float32 {
				return updateDenseGeneric(w, nil, g, alpha)
			}
		},
		"affine ignores the bias": func(k *impl) {
			k.affine = func(out, bias, in, m []float32, nc, nin, nout int) {
				affineGeneric(out, nil, in, m, nc, nin, nout)
			}
		},
		"affine panics": func(k *impl) {
			k.affine = func(out, bias, in, m []float32, nc, nin, nout int) {
				_ = out[len(out)]
			}
		},
		"transpose is a copy": func(k *impl) {
			k.transpose = func(dst, src []float32, rows, cols, ldd, lds int) { copy(dst, src) }
		},
	}
	for name, breakIt := range broken {
		k := good()
		breakIt(k)
		err := tierSelfCheck(k)
		if err == nil {
			t.Errorf("%s: self-check passed", name)
			continue
		}
		if !strings.HasPrefix(err.Error(), "test self-check: ") {
			t.Errorf("%s: error %q lacks the tier name", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
}
