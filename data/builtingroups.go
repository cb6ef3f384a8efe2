package data

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// The categorical groups of the built-in sets Mushrooms and Connect-4,
// which LIBSVM publishes as one-hot encodings of UCI data sets.
//
// Mushrooms. The UCI file agaricus-lepiota.names lists 22 attributes with
// 126 values in all (stalk-root's 7 include "?", its only missing value).
// Every row of LIBSVM's mushrooms has 21 of its 112 features on, so 21
// attributes are encoded, one feature per value that occurs. Scanning the
// features from 1, the shortest run of consecutive features in which every
// row has exactly one on splits the 112 into 21 runs; matched in order to
// the attributes of the .names file, each run is no longer than its
// attribute's list of values, and the one attribute without a run is
// stalk-root, the attribute with missing values. Every feature is on in
// some row, so a run's length is the number of the attribute's values that
// occur in the data:
//
//	attribute                 features  values listed  in the data
//	cap-shape                   1–6          6             6
//	cap-surface                 7–10         4             4
//	cap-color                  11–20        10            10
//	bruises?                   21–22         2             2
//	odor                       23–31         9             9
//	gill-attachment            32–33         4             2
//	gill-spacing               34–35         3             2
//	gill-size                  36–37         2             2
//	gill-color                 38–49        12            12
//	stalk-shape                50–51         2             2
//	stalk-root                   –           7             not encoded
//	stalk-surface-above-ring   52–55         4             4
//	stalk-surface-below-ring   56–59         4             4
//	stalk-color-above-ring     60–68         9             9
//	stalk-color-below-ring     69–77         9             9
//	veil-type                  78            2             1
//	veil-color                 79–82         4             4
//	ring-number                83–85         3             3
//	ring-type                  86–90         8             5
//	spore-print-color          91–99         9             9
//	population                100–105        6             6
//	habitat                   106–112        7             7
//
// 126 values listed − 7 of stalk-root − 7 that never occur (2 of
// gill-attachment, 1 of gill-spacing, 1 of veil-type, 3 of ring-type) =
// 112 features. The order of the values within a group is LIBSVM's and is
// documented nowhere (it is neither the .names order nor alphabetical), so
// the mushrooms attributes have no Values. The rules for poisonous
// mushrooms quoted in the .names file (odor, spore-print-color,
// stalk-surface-below-ring, stalk-color-above-ring, habitat, population,
// cap-color) hold with the errors it states on the groups so named.
//
// Connect-4. LIBSVM encodes cell k of the board (0-based, in the UCI order
// a1, a2, …, a6, b1, …, g6 of connect-4.names: column a–g, row 1–6 from
// the bottom) as features 3k+1 (x), 3k+2 (blank, "b" in the .names file)
// and 3k+3 (o): 42 groups of 3.
var mushroomsAttributes = []struct {
	name        string
	first, last int // LIBSVM features, 1-based
}{
	{"cap-shape", 1, 6}, {"cap-surface", 7, 10}, {"cap-color", 11, 20}, {"bruises?", 21, 22},
	{"odor", 23, 31}, {"gill-attachment", 32, 33}, {"gill-spacing", 34, 35}, {"gill-size", 36, 37},
	{"gill-color", 38, 49}, {"stalk-shape", 50, 51},
	{"stalk-surface-above-ring", 52, 55}, {"stalk-surface-below-ring", 56, 59},
	{"stalk-color-above-ring", 60, 68}, {"stalk-color-below-ring", 69, 77},
	{"veil-type", 78, 78}, {"veil-color", 79, 82}, {"ring-number", 83, 85}, {"ring-type", 86, 90},
	{"spore-print-color", 91, 99}, {"population", 100, 105}, {"habitat", 106, 112},
}

// builtin is the categorical structure of a built-in set.
type builtin struct {
	name   string // canonical name of the set
	groups Groups
	attrs  []Attribute
	group  []int32 // the group of each unit
}

var builtins = map[string]*builtin{
	"mushrooms": mushroomsBuiltin(),
	"connect-4": connect4Builtin(),
}

func mushroomsBuiltin() *builtin {
	b := &builtin{name: "mushrooms", groups: Groups{0}}
	for _, a := range mushroomsAttributes {
		b.groups = append(b.groups, a.last)
		b.attrs = append(b.attrs, Attribute{Name: a.name})
	}
	return b.index()
}

func connect4Builtin() *builtin {
	b := &builtin{name: "connect-4", groups: Groups{0}}
	for k := range 42 {
		b.groups = append(b.groups, 3*k+3)
		cell := fmt.Sprintf("%c%d", 'a'+k/6, k%6+1)
		b.attrs = append(b.attrs, Attribute{Name: cell, Values: []string{"x", "b", "o"}})
	}
	return b.index()
}

// index fills b.group.
func (b *builtin) index() *builtin {
	b.group = make([]int32, b.units())
	for k := range b.groups.Len() {
		for j := b.groups[k]; j < b.groups[k+1]; j++ {
			b.group[j] = int32(k)
		}
	}
	return b
}

// units is the number of units the groups cover.
func (b *builtin) units() int { return b.groups[len(b.groups)-1] }

// BuiltinGroups returns the categorical groups of the built-in set name
// (see [Canonical]) and the attributes they encode: Mushrooms' 21
// attributes (cap-shape, …, habitat) and Connect-4's 42 cells (a1, …, g6,
// each with the values x, b, o). ok is false for a set without (bas,
// mnist) and for a name that is no built-in set. The slices are the
// caller's.
func BuiltinGroups(name string) (g Groups, attrs []Attribute, ok bool) {
	name, _ = Canonical(name)
	b := builtins[name]
	if b == nil {
		return nil, nil, false
	}
	g, attrs = b.clone()
	return g, attrs, true
}

func (b *builtin) clone() (Groups, []Attribute) {
	attrs := make([]Attribute, len(b.attrs))
	for k, a := range b.attrs {
		attrs[k] = Attribute{Name: a.Name, Values: slices.Clone(a.Values)}
	}
	return slices.Clone(b.groups), attrs
}

// attach gives s the groups and attributes of b.
func (b *builtin) attach(s *Set) { s.Groups, s.Attributes = b.clone() }

// libsvmClaim returns the built-in set a LIBSVM file is by its name:
// "mushrooms" or "connect-4" (LIBSVM's names, plain or with .gz), else nil.
func libsvmClaim(name string) *builtin {
	base := strings.TrimSuffix(filepath.Base(name), ".gz")
	if base == "mushrooms" || base == "connect-4" {
		return builtins[base]
	}
	return nil
}

// splitClaim returns the built-in set a split file is by the Name of its
// header ("MUSHROOMS", "CONNECT-4", in any case), else nil.
func splitClaim(name string) *builtin {
	c, _ := Canonical(strings.ToLower(strings.TrimSpace(name)))
	return builtins[c]
}

// brokenSorted checks a row given by the units that are on, in increasing
// order: it returns the first group that does not have exactly one of
// them, and how many it has, or −1 when every group has one. Every unit
// must be below b.units().
func (b *builtin) brokenSorted(on []int32) (k, n int) {
	if len(on) == b.groups.Len() {
		ok := true
		for t, j := range on {
			if b.group[j] != int32(t) {
				ok = false
				break
			}
		}
		if ok {
			return -1, 0
		}
	}
	counts := make([]int, b.groups.Len())
	for _, j := range on {
		counts[b.group[j]]++
	}
	for k, c := range counts {
		if c != 1 {
			return k, c
		}
	}
	return -1, 0
}

// rowError is the error of a row of a file that breaks group k of b, with
// on units on: where is "line 12" (and the example), unit what the file's
// units are called ("features" of LIBSVM, "values" of a split file), and
// the units are numbered from 1 as the file counts them.
func (b *builtin) rowError(name, where string, k, on int, unit string) error {
	return fmt.Errorf("%s: %s: group %d (%s: %s %d–%d) has %d on, want exactly 1: every %s row is one-hot in each of its %d categorical attributes",
		name, where, k, b.attrs[k].Name, unit, b.groups[k]+1, b.groups[k+1], on, b.name, b.groups.Len())
}
