package data

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/internal/datatest"
)

// The tests of this file check the built-in groups on the shared data, with
// expectations read from the UCI .names files and the data README.

// uciAttribute is an attribute of a .names file and how many values it lists.
type uciAttribute struct {
	name   string
	values int
}

// mushroomsNames parses section 7 of agaricus-lepiota.names: "N. name:
// v=c,v=c,…" with the values continued on the lines below.
func mushroomsNames(t *testing.T) (attrs []uciAttribute, missing int, classes map[string]int) {
	b, err := os.ReadFile(datatest.File(t, "mushrooms/agaricus-lepiota.names"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start, end := strings.Index(text, "7. Attribute Information"), strings.Index(text, "8. Missing Attribute Values")
	if start < 0 || end < start {
		t.Fatal("agaricus-lepiota.names: no sections 7 and 8")
	}
	head := regexp.MustCompile(`^\s*(\d+)\.\s+([a-z?-]+):\s*(.*)$`)
	for _, line := range strings.Split(text[start:end], "\n")[1:] {
		if m := head.FindStringSubmatch(line); m != nil {
			if n, _ := strconv.Atoi(m[1]); n != len(attrs)+1 {
				t.Fatalf("attribute %s numbered %d", m[2], n)
			}
			attrs = append(attrs, uciAttribute{m[2], 0})
			line = m[3]
		}
		if len(attrs) > 0 {
			attrs[len(attrs)-1].values += strings.Count(line, "=")
		}
	}
	m := regexp.MustCompile(`all for\s+attribute #(\d+)`).FindStringSubmatch(text[end:])
	if m == nil {
		t.Fatal("agaricus-lepiota.names: no attribute with missing values")
	}
	missing, _ = strconv.Atoi(m[1])
	classes = map[string]int{}
	for _, m := range regexp.MustCompile(`--\s+(edible|poisonous): (\d+)`).FindAllStringSubmatch(text, -1) {
		classes[m[1]], _ = strconv.Atoi(m[2])
	}
	return attrs, missing, classes
}

// onePerGroup checks, with a loop of its own, that every row of s has
// exactly one unit on in each group and on units in all.
func onePerGroup(t *testing.T, s *Set, on int) {
	t.Helper()
	for i := 0; i < s.N; i++ {
		row, total := s.Row(i), 0
		for _, v := range row {
			total += int(v)
		}
		if total != on {
			t.Fatalf("%s: row %d has %d units on, want %d", s.Name, i, total, on)
		}
		for k := 0; k+1 < len(s.Groups); k++ {
			n := 0
			for _, v := range row[s.Groups[k]:s.Groups[k+1]] {
				n += int(v)
			}
			if n != 1 {
				t.Fatalf("%s: row %d, group %d: %d on", s.Name, i, k, n)
			}
		}
	}
}

// TestMushroomsGroupsSharedData: the groups are the attributes of the
// .names file but stalk-root (the one with missing values), in its order,
// each with no more units than its listed values, every unit on in some row
// (so the partition into one-hot runs is the only one), one unit on in
// each group of every row of the LIBSVM file and of both split files, 21
// in all.
func TestMushroomsGroupsSharedData(t *testing.T) {
	attrs, missing, classes := mushroomsNames(t)
	listed := 0
	for _, a := range attrs {
		listed += a.values
	}
	if len(attrs) != 22 || listed != 126 || attrs[missing-1].name != "stalk-root" || classes["edible"] != 4208 || classes["poisonous"] != 3916 {
		t.Fatalf("parsed %d attributes, %d values, missing %d, classes %v", len(attrs), listed, missing, classes)
	}
	full, err := ReadLIBSVMFile(datatest.File(t, "mushrooms/mushrooms"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if full.N != 8124 || full.D != 112 || full.Validate() != nil {
		t.Fatalf("%v", full)
	}
	if c := full.ClassCounts(); !slices.Equal(c, []int{classes["poisonous"], classes["edible"]}) {
		t.Errorf("class counts %v (labels %v)", c, full.ClassNames)
	}
	want := slices.Delete(slices.Clone(attrs), missing-1, missing)
	if len(full.Attributes) != len(want) || full.Groups.Len() != len(want) {
		t.Fatalf("%d groups, %d attributes, want %d", full.Groups.Len(), len(full.Attributes), len(want))
	}
	for k, a := range want {
		if full.Attributes[k].Name != a.name || full.Groups.Size(k) > a.values {
			t.Errorf("group %d: %s of %d units, want %s of at most %d", k, full.Attributes[k].Name, full.Groups.Size(k), a.name, a.values)
		}
	}
	for j, c := range full.Counts() {
		if c == 0 {
			t.Errorf("feature %d is never on", j+1)
		}
	}
	onePerGroup(t, full, 21)
	train, test, err := Load("mushrooms", Options{Dir: datatest.Dir(t)})
	if err != nil {
		t.Fatal(err)
	}
	datatest.File(t, "mushrooms/mushrooms-test.data")
	for _, s := range []*Set{train, test} {
		if !slices.Equal(s.Groups, full.Groups) || !slices.EqualFunc(s.Attributes, full.Attributes, func(a, b Attribute) bool { return a.Name == b.Name }) {
			t.Errorf("%s: groups %v", s.Name, s.Groups)
		}
		onePerGroup(t, s, 21)
	}
	if train.N != 2000 || test.N != 6124 {
		t.Errorf("%d and %d rows", train.N, test.N)
	}
}

// TestMushroomsRulesSharedData: the rules for poisonous mushrooms that
// agaricus-lepiota.names quotes (Duch et al.) give the errors it states
// when their attributes are the groups so named: for each rule there is
// exactly one choice of the units of its values that does.
//
//	P_1) odor=NOT(almond.OR.anise.OR.none): 120 poisonous cases missed
//	P_2) spore-print-color=green: 48 cases missed (with P_1)
//	P_3) odor=none.AND.stalk-surface-below-ring=scaly.AND.
//	     (stalk-color-above-ring=NOT.brown): 8 cases missed (with P_1, P_2)
//	P_4) habitat=leaves.AND.cap-color=white: 100% accuracy (with P_1–P_3)
//	P_4') population=clustered.AND.cap_color=white: likewise
//
// "Missed" are poisonous rows the rules call edible; none may call an
// edible row poisonous.
func TestMushroomsRulesSharedData(t *testing.T) {
	_, _, classes := mushroomsNames(t)
	s, err := ReadLIBSVMFile(datatest.File(t, "mushrooms/mushrooms"), 0)
	if err != nil {
		t.Fatal(err)
	}
	poisonous := slices.Index(s.ClassCounts(), classes["poisonous"])
	units := func(attr string) []int {
		for k, a := range s.Attributes {
			if a.Name == attr {
				var u []int
				for j := s.Groups[k]; j < s.Groups[k+1]; j++ {
					u = append(u, j)
				}
				return u
			}
		}
		t.Fatalf("no group %s", attr)
		return nil
	}
	// errors counts the poisonous rows rule calls edible and the edible
	// rows it calls poisonous.
	errors := func(rule func(row []uint8) bool) (missed, wrong int) {
		for i := 0; i < s.N; i++ {
			p := rule(s.Row(i))
			if s.Label(i) == poisonous && !p {
				missed++
			}
			if s.Label(i) != poisonous && p {
				wrong++
			}
		}
		return missed, wrong
	}
	// only returns the one choice that gives the stated errors.
	only := func(rule string, choices [][]int, missed int, f func(c []int) func([]uint8) bool) []int {
		var found [][]int
		for _, c := range choices {
			if m, w := errors(f(c)); m == missed && w == 0 {
				found = append(found, c)
			}
		}
		if len(found) != 1 {
			t.Fatalf("%s: %d choices of units give %d missed and none wrong: %v", rule, len(found), missed, found)
		}
		return found[0]
	}
	var triples, singles [][]int
	odor := units("odor")
	for a := range odor {
		for b := a + 1; b < len(odor); b++ {
			for c := b + 1; c < len(odor); c++ {
				triples = append(triples, []int{odor[a], odor[b], odor[c]})
			}
		}
	}
	pairs := func(x, y []int) (out [][]int) {
		for _, a := range x {
			for _, b := range y {
				out = append(out, []int{a, b})
			}
		}
		return out
	}
	for _, j := range units("spore-print-color") {
		singles = append(singles, []int{j})
	}
	p1 := only("P_1", triples, 120, func(c []int) func([]uint8) bool {
		return func(r []uint8) bool { return r[c[0]]+r[c[1]]+r[c[2]] == 0 }
	})
	p2 := only("P_2", singles, 48, func(c []int) func([]uint8) bool {
		return func(r []uint8) bool { return r[p1[0]]+r[p1[1]]+r[p1[2]] == 0 || r[c[0]] == 1 }
	})
	var p3Choices [][]int
	for _, none := range p1 {
		for _, sb := range pairs(units("stalk-surface-below-ring"), units("stalk-color-above-ring")) {
			p3Choices = append(p3Choices, []int{none, sb[0], sb[1]})
		}
	}
	upToP3 := func(c []int) func([]uint8) bool {
		return func(r []uint8) bool {
			return r[p1[0]]+r[p1[1]]+r[p1[2]] == 0 || r[p2[0]] == 1 || (r[c[0]] == 1 && r[c[1]] == 1 && r[c[2]] == 0)
		}
	}
	p3 := only("P_3", p3Choices, 8, upToP3)
	p4 := only("P_4", pairs(units("habitat"), units("cap-color")), 0, func(c []int) func([]uint8) bool {
		return func(r []uint8) bool { return upToP3(p3)(r) || (r[c[0]] == 1 && r[c[1]] == 1) }
	})
	p4b := only("P_4'", pairs(units("population"), units("cap-color")), 0, func(c []int) func([]uint8) bool {
		return func(r []uint8) bool { return upToP3(p3)(r) || (r[c[0]] == 1 && r[c[1]] == 1) }
	})
	if p4[1] != p4b[1] {
		t.Errorf("P_4 and P_4' find different units for cap-color=white: %d, %d", p4[1], p4b[1])
	}
}

// TestConnect4GroupsSharedData decodes every row of LIBSVM's connect-4
// back to a board with the groups, their cell names and their values, and
// checks it against connect-4.names: the cells in its order (a1, …, g6),
// the class counts, and "all legal 8-ply positions in which neither
// player has won yet": 4 x, 4 o and 34 blanks, no piece above an empty
// cell of its column, no four in a row. The paper's training split and
// the test split made from the rest have the groups too, with the class
// counts of the data README.
func TestConnect4GroupsSharedData(t *testing.T) {
	b, err := os.ReadFile(datatest.File(t, "connect-4/connect-4.names"))
	if err != nil {
		t.Fatal(err)
	}
	var cells []string
	for _, m := range regexp.MustCompile(`(?m)^\s*(\d+)\. ([a-g][1-6]): \{x,o,b\}$`).FindAllStringSubmatch(string(b), -1) {
		cells = append(cells, m[2])
	}
	dist := regexp.MustCompile(`(\d+) win\(.*?(\d+) loss\(.*?(\d+) draw\(`).FindStringSubmatch(string(b))
	if len(cells) != 42 || dist == nil {
		t.Fatalf("connect-4.names: %d cells, distribution %v", len(cells), dist)
	}
	s, err := ReadLIBSVMFile(datatest.File(t, "connect-4/connect-4"), 0)
	if err != nil {
		t.Fatal(err)
	}
	// LIBSVM's labels are −1, 0, 1 for loss, draw, win (data README).
	if s.N != 67557 || !slices.Equal(s.ClassNames, []string{"-1", "0", "1"}) ||
		strconv.Itoa(s.ClassCounts()[0]) != dist[2] || strconv.Itoa(s.ClassCounts()[1]) != dist[3] || strconv.Itoa(s.ClassCounts()[2]) != dist[1] {
		t.Errorf("%v; .names says %v", s, dist[1:])
	}
	if len(s.Attributes) != 42 {
		t.Fatalf("%d attributes", len(s.Attributes))
	}
	for k, a := range s.Attributes {
		if a.Name != cells[k] {
			t.Errorf("group %d is %s, .names says %s", k, a.Name, cells[k])
		}
	}
	onePerGroup(t, s, 42)
	for i := 0; i < s.N; i++ {
		var board [7][6]byte // column a–g, row 1–6
		var count [256]int
		row := s.Row(i)
		for k, a := range s.Attributes {
			for u, v := range row[s.Groups[k]:s.Groups[k+1]] {
				if v == 1 {
					board[a.Name[0]-'a'][a.Name[1]-'1'] = a.Values[u][0]
					count[a.Values[u][0]]++
				}
			}
		}
		if count['x'] != 4 || count['o'] != 4 || count['b'] != 34 {
			t.Fatalf("row %d: %v, want 4 x, 4 o, 34 b", i, count)
		}
		for c := range 7 {
			for r := 1; r < 6; r++ {
				if board[c][r] != 'b' && board[c][r-1] == 'b' {
					t.Fatalf("row %d: a piece on %c%d above an empty cell", i, 'a'+c, r+1)
				}
			}
		}
		for c := range 7 {
			for r := range 6 {
				for _, d := range [][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}} {
					p, n := board[c][r], 1
					for n < 4 {
						cc, rr := c+n*d[0], r+n*d[1]
						if p == 'b' || cc >= 7 || rr < 0 || rr >= 6 || board[cc][rr] != p {
							break
						}
						n++
					}
					if n == 4 {
						t.Fatalf("row %d: four %c in a row from %c%d", i, p, 'a'+c, r+1)
					}
				}
			}
		}
	}
	train, test, err := Load("connect-4", Options{Dir: datatest.Dir(t)})
	if err != nil {
		t.Fatal(err)
	}
	if train.N != 16000 || test.N != 51557 || !slices.Equal(test.ClassCounts(), []int{12642, 4926, 33989}) {
		t.Errorf("%v\n%v", train, test)
	}
	for _, u := range []*Set{train, test} {
		if !slices.Equal(u.Groups, s.Groups) || len(u.Attributes) != 42 || u.Attributes[41].Name != "g6" {
			t.Errorf("%s: groups %v", u.Name, u.Groups)
		}
		onePerGroup(t, u, 42)
	}
}

// TestPaperSplitFallbacksKeepGroups: each way LoadPaperSplit makes the
// mushrooms sets (split files; training split and LIBSVM file; LIBSVM file
// alone; training split alone) gives both sets the groups.
func TestPaperSplitFallbacksKeepGroups(t *testing.T) {
	shared := filepath.Join(datatest.Dir(t), "mushrooms")
	datatest.File(t, "mushrooms/mushrooms-test.data")
	for _, files := range [][]string{
		{"mushrooms-train.data", "mushrooms-test.data"},
		{"mushrooms-train.data", "mushrooms"},
		{"mushrooms"},
		{"mushrooms-train.data"},
	} {
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, "mushrooms"), 0o755)
		for _, f := range files {
			if err := os.Symlink(filepath.Join(shared, f), filepath.Join(dir, "mushrooms", f)); err != nil {
				t.Fatal(err)
			}
		}
		train, test, err := Load("mushrooms", Options{Dir: dir, SplitSeed: 3})
		if err != nil {
			t.Fatalf("%v: %v", files, err)
		}
		for _, s := range []*Set{train, test} {
			if s.Groups.Len() != 21 || len(s.Attributes) != 21 || s.Attributes[20].Name != "habitat" || s.Validate() != nil {
				t.Errorf("%v: %s: groups %v", files, s.Name, s.Groups)
			}
		}
	}
}
