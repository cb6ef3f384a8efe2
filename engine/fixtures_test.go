package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// Fixtures shared by the engine tests: data, configurations and
// comparisons of trainers.

// randomData makes n rows of d binary units with a few repeated patterns
// (so that there is something to learn) and labels.
func randomData(seed uint64, n, d, classes int) *Data {
	r := rand.New(rand.NewPCG(seed, 0))
	protos := make([][]uint8, max(classes, 3))
	for p := range protos {
		protos[p] = make([]uint8, d)
		for j := range protos[p] {
			if r.Float64() < 0.3 {
				protos[p][j] = 1
			}
		}
	}
	out := &Data{N: n, D: d, X: make([]uint8, n*d), Classes: classes}
	if classes > 0 {
		out.Labels = make([]int32, n)
	}
	for i := 0; i < n; i++ {
		p := r.IntN(len(protos))
		for j := 0; j < d; j++ {
			v := protos[p][j]
			if r.Float64() < 0.05 {
				v ^= 1
			}
			out.X[i*d+j] = v
		}
		if classes > 0 {
			out.Labels[i] = int32(p % classes)
		}
	}
	return out
}

func smallConfig(method Method) Config {
	c := DefaultConfig()
	c.Method, c.Hidden, c.K, c.Batch, c.LR, c.LRConn, c.Epochs = method, 24, 3, 10, 0.05, 0.25, 2
	c.LineWidth, c.Density, c.Epsilon = 9, 0.4, 3
	return c
}

var allMethods = []Method{Dense, NCG, Line, Random, SET}

// sparseConfigs are fixed-mask configurations at most SparseDensity() dense
// for 30–40 data units, which train on compressed rows.
func sparseConfigs() []Config {
	set, random, line := smallConfig(SET), smallConfig(Random), smallConfig(Line)
	set.Epsilon, random.Density, line.LineWidth = 1, 0.08, 2
	return []Config{set, random, line}
}

// allConfigs is every method's small configuration, then the sparse ones.
func allConfigs() []Config {
	var cs []Config
	for _, m := range allMethods {
		cs = append(cs, smallConfig(m))
	}
	return append(cs, sparseConfigs()...)
}

// paramsEqual reports the first parameter that differs in any bit.
func paramsEqual(a, b *Model) string {
	names := []string{"W", "A", "AP", "C", "CH", "B", "V", "LogVar", "Sigma"}
	as := [][]float32{a.W, a.A, a.AP, a.c, a.ch, a.HiddenBias, a.VisibleBias, a.LogVar, a.Sigma}
	bs := [][]float32{b.W, b.A, b.AP, b.c, b.ch, b.HiddenBias, b.VisibleBias, b.LogVar, b.Sigma}
	for p := range as {
		if len(as[p]) != len(bs[p]) {
			return names[p] + " length"
		}
		for k := range as[p] {
			if math.Float32bits(as[p][k]) != math.Float32bits(bs[p][k]) {
				return names[p]
			}
		}
	}
	return ""
}

func train(t *testing.T, cfg Config, d *Data) *Model {
	t.Helper()
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Train(context.Background(), Options{}); err != nil {
		t.Fatal(err)
	}
	m := tr.Model()
	if msg := copiesFollowC(m); msg != "" {
		t.Fatal(msg)
	}
	return m
}

// copiesFollowC checks the copies of C the products read, which each row
// task refreshes: the down pass's hidden-major CH must be C transposed, and
// the up pass's cp must hold C's rows cpStride() apart, 64-byte aligned,
// with zero padding. It returns the first difference, or "".
func copiesFollowC(m *Model) string {
	ld := m.cpStride()
	if len(m.cp) != m.X*ld {
		return fmt.Sprintf("cp has length %d, want %d·%d", len(m.cp), m.X, ld)
	}
	if p := uintptr(unsafe.Pointer(&m.cp[0])); p%64 != 0 {
		return fmt.Sprintf("cp starts at %#x, not on a 64-byte boundary", p)
	}
	for i := 0; i < m.X; i++ {
		for j := 0; j < ld; j++ {
			want := float32(0)
			if j < m.H {
				want = m.c[i*m.H+j]
				if a := m.ch[j*m.X+i]; a != want {
					return fmt.Sprintf("CH[%d,%d] = %v, C[%d,%d] = %v", j, i, a, i, j, want)
				}
			}
			if a := m.cp[i*ld+j]; a != want {
				return fmt.Sprintf("cp[%d,%d] = %v, want %v", i, j, a, want)
			}
		}
	}
	return ""
}

// formHook sets rowForm and returns the function that clears it.
func formHook(form string) (restore func()) {
	rowForm = form
	return func() { rowForm = "" }
}

// gaussOf returns a Gaussian trainer's units.
func gaussOf(tr *Trainer) *gaussianUnits { return tr.vis.(*gaussianUnits) }
