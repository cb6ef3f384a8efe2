package experiment

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ncg-rbm/ncg/engine"
)

// A sweep's grid, and the helpers that parse its lists and name its runs.

// SplitList splits a comma list ("0.25,0.5, 1") into trimmed, non-empty
// items; an empty item is an error.
func SplitList(s string) ([]string, error) {
	parts := strings.Split(s, ",")
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, fmt.Errorf("empty item in list %q", s)
		}
		out = append(out, p)
	}
	return out, nil
}

// ParseSeeds parses a comma list of seeds and inclusive ranges:
// "1-25", "1,2,7-9". Ranges must be increasing; at most 1<<20 seeds.
func ParseSeeds(s string) ([]uint64, error) {
	items, err := SplitList(s)
	if err != nil {
		return nil, err
	}
	var out []uint64
	for _, it := range items {
		lo, hi, isRange := strings.Cut(it, "-")
		a, err := strconv.ParseUint(strings.TrimSpace(lo), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("seed %q is not a non-negative integer or a range a-b", it)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(strings.TrimSpace(hi), 10, 64); err != nil || b < a {
				return nil, fmt.Errorf("seed range %q is not a-b with a ≤ b", it)
			}
		}
		if b-a >= 1<<20 || len(out)+int(b-a+1) > 1<<20 {
			return nil, fmt.Errorf("seed list %q is longer than %d", s, 1<<20)
		}
		for v := a; ; v++ {
			out = append(out, v)
			if v == b {
				break
			}
		}
	}
	return out, nil
}

// SafeName turns s into a file-name component: letters, digits, '.', '_',
// '+' and '-' are kept, anything else becomes '_'.
func SafeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '+', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 || s == "." || s == ".." {
		return "_"
	}
	return b.String()
}

// FormatFloat is the shortest decimal that reads back as v ("0.5", "1e-05"),
// the form used in run names.
func FormatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Grid is a sweep: every combination of the values of its axes, each
// applied to Base. An empty axis leaves Base's value. The axes expand in
// the order of the fields, the first slowest and the seed fastest; an axis
// of a setting that matters to one method only (MethodOf) is expanded for
// the runs of that method alone.
type Grid struct {
	// Base holds every run's other settings. Its Engine.Method is used
	// when Methods is empty.
	Base Spec
	// Given lists the settings set explicitly in Base. For a named data
	// set, every other setting of DataSettings() takes the data set's
	// default (DefaultsFor) in each run; an axis counts as given for the
	// runs it expands.
	Given map[Setting]bool

	Methods   []engine.Method
	Hidden    []int
	P         []float64
	Density   []float64
	LineWidth []int
	Gamma     []float64
	LRConn    []float64
	Seeds     []uint64

	// Order sets the runs' indices (never a run's result): GridOrder or
	// SeedOrder.
	Order Order
}

// Order is the order of a sweep's runs.
type Order string

// The orders.
const (
	// GridOrder keeps each setting's seeds together, the seed varying
	// fastest. The zero value "" is GridOrder.
	GridOrder Order = "grid"
	// SeedOrder puts every setting's first seed before any setting's
	// second, so that a partial sweep covers every setting.
	SeedOrder Order = "seed"
)

// Point is one run of a sweep: its index in the sweep's order, its name
// (<data>-<method>[-<axis><value>…]-seed<seed>, with every axis of more
// than one value) and its run directory.
type Point struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	Dir   string `json:"dir"`
	Spec  Spec   `json:"spec"`
}

// axis is one list of a Grid: its setting, the prefix of its value in run
// names, its length, and how to set value i in a Spec and print it.
type axis struct {
	k      Setting
	prefix string
	n      int
	set    func(s *Spec, i int)
	value  func(s *Spec) string
}

func (g *Grid) axes() []axis {
	num := func(k Setting, prefix string, vals []float64, p func(*Spec) *float64) axis {
		return axis{k, prefix, len(vals), func(s *Spec, i int) { *p(s) = vals[i] }, func(s *Spec) string { return FormatFloat(*p(s)) }}
	}
	whole := func(k Setting, prefix string, vals []int, p func(*Spec) *int) axis {
		return axis{k, prefix, len(vals), func(s *Spec, i int) { *p(s) = vals[i] }, func(s *Spec) string { return fmt.Sprint(*p(s)) }}
	}
	return []axis{
		whole(SetHidden, "h", g.Hidden, func(s *Spec) *int { return &s.Engine.Hidden }),
		num(SetP, "p", g.P, func(s *Spec) *float64 { return &s.Engine.P }),
		num(SetDensity, "d", g.Density, func(s *Spec) *float64 { return &s.Engine.Density }),
		whole(SetLineWidth, "v", g.LineWidth, func(s *Spec) *int { return &s.Engine.LineWidth }),
		num(SetGamma, "g", g.Gamma, func(s *Spec) *float64 { return &s.Engine.Gamma }),
		num(SetLRConn, "lrc", g.LRConn, func(s *Spec) *float64 { return &s.Engine.LRConn }),
		{"seed", "seed", len(g.Seeds), func(s *Spec, i int) { s.Engine.Seed = g.Seeds[i] }, func(s *Spec) string { return fmt.Sprint(s.Engine.Seed) }},
	}
}

// Expand returns the grid's runs in its order, each in a subdirectory of
// out named after it, with its settings validated (Spec.Validate). A run
// that fails validation, or two runs with the same settings, give a
// *ConfigError naming the run.
func (g Grid) Expand(out string) ([]Point, error) {
	methods := g.Methods
	if len(methods) == 0 {
		methods = []engine.Method{g.Base.Engine.Method}
	}
	defaults, named := DefaultsFor(g.Base.Data)
	var points []Point
	names := map[string]int{}
	for _, m := range methods {
		var axes []axis // the axes this method expands
		for _, a := range g.axes() {
			if a.n > 0 && appliesTo(a.k, m) {
				axes = append(axes, a)
			}
		}
		idx := make([]int, len(axes))
		for {
			s := g.Base
			s.Engine.Method = m
			for k, a := range axes {
				a.set(&s, idx[k])
			}
			if named {
				defaults.Apply(&s, func(k Setting) bool {
					for _, a := range axes {
						if a.k == k {
							return true
						}
					}
					return g.Given[k]
				})
			}
			name := pointName(s, axes)
			if err := s.Validate(); err != nil {
				return nil, &ConfigError{fmt.Errorf("run %s: %w", name, err)}
			}
			if j, dup := names[name]; dup {
				return nil, &ConfigError{fmt.Errorf("runs %d and %d have the same settings (%s): remove the repeated value", j, len(points), name)}
			}
			names[name] = len(points)
			points = append(points, Point{Index: len(points), Name: name, Dir: filepath.Join(out, name), Spec: s})
			// Next combination, the last axis fastest.
			k := len(axes) - 1
			for ; k >= 0; k-- {
				if idx[k]++; idx[k] < axes[k].n {
					break
				}
				idx[k] = 0
			}
			if k < 0 {
				break
			}
		}
	}
	switch g.Order {
	case "", GridOrder:
	case SeedOrder:
		seedFirst(points, g.Seeds)
	default:
		return nil, &ConfigError{fmt.Errorf("order %q is not one of grid, seed", g.Order)}
	}
	return points, nil
}

// pointName is <data>-<method>[-<axis><value>…]-seed<seed>: the data set,
// the method, every axis of more than one value, and the seed, with the
// values as the run uses them (0.50 and 0.5 give the same name).
func pointName(s Spec, axes []axis) string {
	data := filepath.Base(s.Data)
	if ext := filepath.Ext(data); ext != "" && ext != data {
		data = strings.TrimSuffix(data, ext)
	}
	parts := []string{data, string(s.Engine.Method)}
	for _, a := range axes {
		if a.k != "seed" && a.n > 1 {
			parts = append(parts, a.prefix+a.value(&s))
		}
	}
	parts = append(parts, fmt.Sprintf("seed%d", s.Engine.Seed))
	for k := range parts {
		parts[k] = SafeName(parts[k])
	}
	return strings.Join(parts, "-")
}

// seedFirst reorders points (in grid order) by the position of their seed
// in seeds, keeping the grid order among equal seeds, and renumbers them.
func seedFirst(points []Point, seeds []uint64) {
	pos := map[uint64]int{}
	for _, s := range seeds {
		if _, ok := pos[s]; !ok {
			pos[s] = len(pos)
		}
	}
	seed := func(i int) int { return pos[points[i].Spec.Engine.Seed] }
	sort.SliceStable(points, func(i, j int) bool { return seed(i) < seed(j) })
	for i := range points {
		points[i].Index = i
	}
}
