package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/unit"
)

// Model is an RBM with a connectivity mask. All X×H matrices are
// visible-major: element [j*H+i] joins visible unit j and hidden unit i.
//
// The acting weights C = W⊙A, and the copies of C the products read, are
// derived from W and A and kept in step by the trainer: they are
// unexported, and C and CH read them.
type Model struct {
	X         int // visible units: DataUnits data units, then X−DataUnits label units
	DataUnits int // data units
	H         int // hidden units

	W           []float32 // weights (X×H); an inactive weight keeps its value, frozen
	A           []float32 // mask, 0 or 1 (X×H); label rows are always 1
	AP          []float32 // connection strength A′ in [0, 1] (X×H); NCG only, else nil
	HiddenBias  []float32 // hidden biases b (H)
	VisibleBias []float32 // visible biases d (X)

	// Visible is the type of the visible units (Config.Visible), with
	// the parameters of its own: Gaussian units' LogVar, each unit's
	// z = log σ² (X; zeros while σ is fixed at 1), and Sigma, its σ =
	// exp(z/2), which the trainer keeps in step with LogVar; categorical
	// units' Groups, the one-hot groups of all X visible units (a
	// classification model's label units are the last group). The others
	// are nil.
	Visible       unit.Type
	LogVar, Sigma []float32
	Groups        data.Groups

	c  []float32 // acting weights W⊙A (X×H)
	ch []float32 // c hidden-major (H×X), for the down pass

	// cp is c with its rows cpStride() floats apart from a 64-byte
	// boundary, for the up pass's binary-state products: rows of H = 500
	// floats start mid-cache-line three times in four, and every load of
	// such a row spans two lines. Kept equal to c wherever ch is.
	cp []float32
}

// C returns the acting weights W⊙A (X×H, visible-major), the weights
// every product uses. The slice is the model's own: read it, do not
// write it (SetC replaces it).
func (m *Model) C() []float32 { return m.c }

// CH returns C hidden-major (H×X), the model's own copy: read it, do not
// write it.
func (m *Model) CH() []float32 { return m.ch }

func newModel(x, d, h int, ncg bool) *Model {
	n := x * h
	m := &Model{X: x, DataUnits: d, H: h,
		W: make([]float32, n), A: make([]float32, n), c: make([]float32, n), ch: make([]float32, n),
		HiddenBias: make([]float32, h), VisibleBias: make([]float32, x)}
	m.padC(0, x)
	if ncg {
		m.AP = make([]float32, n)
	}
	return m
}

// initModel draws the parameters of a new run from rng (docs/algorithm.md,
// "Initialisation" and "Connectivity methods"; the paper's section 4.1).
func initModel(cfg Config, x, d int, rng *rand.Rand) *Model {
	h := cfg.Hidden
	m := newModel(x, d, h, cfg.Method == NCG)
	a := float32(cfg.InitScale)
	for k := range m.W {
		switch cfg.Init {
		case Uniform:
			m.W[k] = a * (2*rng.Float32() - 1)
		case Normal:
			m.W[k] = a * float32(rng.NormFloat64())
		}
	}
	data := m.A[:d*h]
	switch cfg.Method {
	case Dense:
		fill(data, 1)
	case NCG:
		g := float32(cfg.Gamma)
		for k := range data {
			if rng.Float64() < cfg.P {
				data[k] = 1
				m.AP[k] = g + (1-g)*rng.Float32()
			} else {
				m.AP[k] = g * rng.Float32()
			}
		}
		fill(m.AP[d*h:], 1)
	case Line:
		for i, start := range lineStarts(d, h) {
			for t := 0; t < cfg.LineWidth; t++ {
				data[((start+t)%d)*h+i] = 1
			}
		}
	case Random:
		erdosRenyi(data, cfg.Density, rng)
	case SET:
		erdosRenyi(data, setDensity(cfg, d), rng)
	}
	fill(m.A[d*h:], 1) // label connections are always present
	m.refreshC()
	return m
}

func fill(s []float32, v float32) {
	for i := range s {
		s[i] = v
	}
}

func erdosRenyi(a []float32, p float64, rng *rand.Rand) {
	for k := range a {
		if rng.Float64() < p {
			a[k] = 1
		}
	}
}

func setDensity(cfg Config, d int) float64 {
	return cfg.Epsilon * float64(d+cfg.Hidden) / float64(d*cfg.Hidden)
}

// lineStarts spreads the first visible unit of each hidden unit's line
// evenly, as the authors' code does: step = ⌈D/H⌉, start i·step, and once
// that passes D it wraps to odd offsets (for D = 784, H = 500: 0, 2, …,
// 782, then 1, 3, 5, …): start = (i·step mod D) + ⌊i·step / D⌋.
func lineStarts(d, h int) []int {
	step := (d + h - 1) / h
	s := make([]int, h)
	for i := range s {
		v := i * step
		s[i] = (v%d + v/d) % d
	}
	return s
}

// refreshC recomputes C = W⊙A and its copies.
func (m *Model) refreshC() {
	for k := range m.c {
		m.c[k] = m.W[k] * m.A[k]
	}
	m.syncCopies()
}

// Connectivity summarises the data connections (label rows excluded).
type Connectivity struct {
	Density              float64 // active data connections / (D·H)
	DegreeMin, DegreeMax int     // active data connections per hidden unit
	DegreeMean           float64
	Active               int
}

// Connectivity returns the density and hidden-degree statistics.
func (m *Model) Connectivity() Connectivity {
	deg := m.Degrees()
	c := Connectivity{DegreeMin: math.MaxInt}
	for _, v := range deg {
		c.Active += v
		c.DegreeMin = min(c.DegreeMin, v)
		c.DegreeMax = max(c.DegreeMax, v)
	}
	c.DegreeMean = float64(c.Active) / float64(m.H)
	c.Density = float64(c.Active) / float64(m.DataUnits*m.H)
	return c
}

// Degrees returns each hidden unit's number of active data connections.
func (m *Model) Degrees() []int {
	deg := make([]int, m.H)
	for j := 0; j < m.DataUnits; j++ {
		row := m.A[j*m.H : (j+1)*m.H]
		for i, a := range row {
			if a != 0 {
				deg[i]++
			}
		}
	}
	return deg
}

// rewireSET is SET's step after an epoch (Mocanu et al. 2018): among the
// active data connections, remove the fraction ζ of the positive weights
// closest to zero and ζ of the negative weights closest to zero, then grow
// as many new connections at random empty places with small random weights
// (uniform in ±0.01·InitScale, at least ±0.01; with normal, from
// N(0, InitScale²); with regrow false, none are grown).
func (m *Model) rewireSET(zeta, scale float64, regrow, normal bool, rng *rand.Rand) {
	n := m.DataUnits * m.H
	var pos, neg []int
	for k := 0; k < n; k++ {
		if m.A[k] == 0 {
			continue
		}
		if m.W[k] > 0 {
			pos = append(pos, k)
		} else {
			neg = append(neg, k)
		}
	}
	sort.SliceStable(pos, func(a, b int) bool { return m.W[pos[a]] < m.W[pos[b]] })
	sort.SliceStable(neg, func(a, b int) bool { return m.W[neg[a]] > m.W[neg[b]] })
	removed := 0
	for _, list := range [][]int{pos, neg} {
		cut := int(zeta * float64(len(list)))
		for _, k := range list[:cut] {
			m.A[k], m.W[k], m.c[k] = 0, 0, 0
			removed++
		}
	}
	empty := n - (len(pos) + len(neg) - removed)
	switch {
	case !regrow:
		removed = 0
	case removed > empty:
		removed = empty
	}
	w := float32(0.01 * math.Max(scale, 1))
	for removed > 0 {
		k := rng.IntN(n)
		if m.A[k] != 0 {
			continue
		}
		m.A[k] = 1
		if normal {
			m.W[k] = float32(scale * rng.NormFloat64())
		} else {
			m.W[k] = w * (2*rng.Float32() - 1)
		}
		removed--
	}
	m.refreshC()
}

// Clone returns a deep copy.
func (m *Model) Clone() *Model {
	c := *m
	for _, p := range []*[]float32{&c.W, &c.A, &c.AP, &c.c, &c.ch, &c.HiddenBias, &c.VisibleBias, &c.LogVar, &c.Sigma} {
		if *p != nil {
			*p = append([]float32(nil), (*p)...)
		}
	}
	c.cp = nil
	c.padC(0, c.X)
	return &c
}

func (m *Model) String() string {
	return fmt.Sprintf("RBM %d visible (%d data) × %d hidden", m.X, m.DataUnits, m.H)
}

// SetC sets the acting weights C (X×H, visible-major; the model keeps
// the slice) and rebuilds the copies of them that the products read, as
// a model loader needs.
func (m *Model) SetC(c []float32) error {
	if len(c) != m.X*m.H {
		return fmt.Errorf("engine: C has %d values, want X·H = %d·%d", len(c), m.X, m.H)
	}
	m.c = c
	m.syncCopies()
	return nil
}

// syncCopies rebuilds from c the copies of it that the products read: the
// hidden-major ch (allocated if it has the wrong length) and the padded
// rows of the up pass.
func (m *Model) syncCopies() {
	if len(m.ch) != m.X*m.H {
		m.ch = make([]float32, m.X*m.H)
	}
	kernel.Transpose(m.ch, m.c, m.X, m.H)
	m.padC(0, m.X)
}

// lineFloats is the number of floats in a 64-byte cache line.
const lineFloats = 16

// prefetchCopies asks for the cache lines that refreshing the copies of C
// will write (kernel.PrefetchW): row j of cp, and the band of columns
// j0…j1−1 of ch in the rows of hidden units i0…i1−1. With two workers, the
// other core has read most of them during the chains; fetched ahead, they
// arrive while the row's gradient is summed instead of stalling the stores
// of the transpose and the copy.
func (m *Model) prefetchCopies(j, i0, i1, j0, j1 int) {
	ld := m.cpStride() // cp's rows start on a line
	kernel.PrefetchW(m.cp[j*ld:], (m.H+lineFloats-1)/lineFloats, lineFloats)
	if i1 > i0 {
		kernel.PrefetchW(m.ch[i0*m.X+j0:], i1-i0, m.X)
		kernel.PrefetchW(m.ch[i0*m.X+j1-1:], i1-i0, m.X) // a band may span two lines
	}
}

// cpStride is the row stride of cp.
func (m *Model) cpStride() int { return kernel.PadStride(m.H) }

// padC copies rows [j0, j1) of c to cp; it (re)allocates cp, copying every
// row, when cp does not have the shape of c.
func (m *Model) padC(j0, j1 int) {
	ld, h := m.cpStride(), m.H
	if len(m.cp) != m.X*ld {
		m.cp = kernel.Aligned(m.X * ld)
		j0, j1 = 0, m.X
	}
	for j := j0; j < j1; j++ {
		copy(m.cp[j*ld:j*ld+h], m.c[j*h:(j+1)*h])
	}
}
