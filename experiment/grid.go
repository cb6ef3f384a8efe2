package experiment

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// A sweep's grid, and the helpers that parse its lists and name its runs.

// SplitList splits a comma list ("0.25,0.5, 1") into trimmed, non-empty
// items; an empty item is an error.
func SplitList(s string) ([]string, error) { return splitOn(s, ",") }

// splitOn splits s at sep into trimmed, non-empty items.
func splitOn(s, sep string) ([]string, error) {
	parts := strings.Split(s, sep)
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

// Grid is a sweep: every combination of the values of its axes. Settings
// holds every setting given, as NewSpec takes them; an axis
// (Setting.Axis: method, hidden, p, density, v, gamma, lr-conn, seed)
// may hold a list. Every other setting takes its default in each run, as
// NewSpec gives it. The axes expand in table order, the method first and
// the seed fastest; an axis of a setting that a method does not use (p for
// dense) is expanded for the runs of the methods that use it alone.
type Grid struct {
	Settings Settings
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
// (RunName, with every axis of more than one value) and its run directory.
type Point struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	Dir   string `json:"dir"`
	Spec  Spec   `json:"spec"`
}

// Expand returns the grid's runs in its order, each in a subdirectory of
// out named after it, with its settings normalised and validated. A run
// that fails validation, a setting given that no run uses, or two runs
// with the same settings give a *ConfigError naming the run or the flag.
func (g Grid) Expand(out string) ([]Point, error) {
	texts, err := g.Settings.texts(true)
	if err != nil {
		return nil, &ConfigError{err}
	}
	base := map[string]string{}
	var axes []*Setting // the axes given, in table order
	for _, st := range settings {
		v, ok := texts[st.Name]
		switch {
		case !ok:
		case st.Axis != "":
			axes = append(axes, st)
		default:
			base[st.Name] = v[0]
		}
	}
	for _, a := range aliases {
		if v, ok := texts[a.Name]; ok {
			base[a.Name] = v[0]
		}
	}
	methods := texts["method"]
	if methods == nil {
		methods = []string{Format(lookup("method").Default)}
	}
	var points []Point
	var specs []Spec
	names := map[string]int{}
	for _, m := range methods {
		probe := copyMap(base)
		probe["method"] = m
		ps, err := resolve(probe)
		if err != nil {
			return nil, &ConfigError{err}
		}
		var mine []*Setting // the axes this method expands
		for _, a := range axes {
			if a.Name != "method" && (a.Uses == nil || a.Uses(ps)) {
				mine = append(mine, a)
			}
		}
		if err := checkGridSize(len(points), mine, texts); err != nil {
			return nil, &ConfigError{err}
		}
		var varied []string
		for _, a := range mine {
			if len(texts[a.Name]) > 1 {
				varied = append(varied, a.Name)
			}
		}
		idx := make([]int, len(mine))
		for {
			given := copyMap(probe)
			for k, a := range mine {
				given[a.Name] = texts[a.Name][idx[k]]
			}
			s, err := resolve(given)
			if err != nil {
				return nil, &ConfigError{err}
			}
			name := RunName(s, varied...)
			if j, dup := names[name]; dup {
				return nil, &ConfigError{fmt.Errorf("runs %d and %d have the same settings (%s): remove the repeated value", j, len(points), name)}
			}
			names[name] = len(points)
			points = append(points, Point{Index: len(points), Name: name, Dir: filepath.Join(out, name), Spec: s})
			specs = append(specs, s)
			// Next combination, the last axis fastest.
			k := len(mine) - 1
			for ; k >= 0; k-- {
				if idx[k]++; idx[k] < len(texts[mine[k].Name]) {
					break
				}
				idx[k] = 0
			}
			if k < 0 {
				break
			}
		}
	}
	given := copyMap(base)
	for _, a := range axes {
		given[a.Name] = texts[a.Name][0]
	}
	if err := unused(given, specs); err != nil {
		return nil, &ConfigError{err}
	}
	for i := range points {
		if err := specs[i].Validate(); err != nil { // before Normalize, as NewSpec
			return nil, &ConfigError{fmt.Errorf("run %s: %w", points[i].Name, err)}
		}
		points[i].Spec = specs[i].Normalize()
	}
	switch g.Order {
	case "", GridOrder:
	case SeedOrder:
		seedFirst(points)
	default:
		return nil, &ConfigError{fmt.Errorf("order %q is not one of grid, seed", g.Order)}
	}
	return points, nil
}

// MaxGridRuns is the most runs a Grid expands to: far more than a study
// runs (the paper's tables take a few hundred), and few enough that the
// runs' list fits in memory on any machine before it is written out.
const MaxGridRuns = 100_000

// checkGridSize refuses, before expanding them, the runs of one method
// (the product of the lengths of its axes' lists) that would take a grid
// of runs runs so far past MaxGridRuns, naming the longest list.
func checkGridSize(runs int, axes []*Setting, texts map[string][]string) error {
	total := 1.0
	var named []string
	longest, most := "", 0
	for _, a := range axes {
		n := len(texts[a.Name])
		total *= float64(n)
		if n > 1 {
			named = append(named, fmt.Sprintf("%d %s", n, a.Name))
		}
		if n > most {
			longest, most = a.Name, n
		}
	}
	if float64(runs)+total <= MaxGridRuns {
		return nil
	}
	return fmt.Errorf("%s: a sweep of at least %.0f runs (%s values); at most %d: split it into several sweeps",
		longest, float64(runs)+total, strings.Join(named, " × "), MaxGridRuns)
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// seedFirst reorders points (in grid order) by the position of their seed
// in the seeds' first appearances, keeping the grid order among equal
// seeds, and renumbers them.
func seedFirst(points []Point) {
	pos := map[uint64]int{}
	for _, p := range points {
		if _, ok := pos[p.Spec.Engine.Seed]; !ok {
			pos[p.Spec.Engine.Seed] = len(pos)
		}
	}
	seed := func(i int) int { return pos[points[i].Spec.Engine.Seed] }
	sort.SliceStable(points, func(i, j int) bool { return seed(i) < seed(j) })
	for i := range points {
		points[i].Index = i
	}
}
