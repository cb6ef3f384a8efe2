package report

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/ncg-rbm/ncg/experiment"
)

// TestGroupNamesTellEverySettingApart: two groups of runs that differ in
// one setting only, any setting of experiment.Table but the seed and the
// evaluation schedule (which groups pool), get different names, so that a
// setting added to the table is in the names without an edit here or in
// report; and a group's name does not show a setting its runs do not use.
func TestGroupNamesTellEverySettingApart(t *testing.T) {
	bases := []experiment.Settings{
		{"data": "bas"}, {"data": "bas", "method": "line"}, {"data": "bas", "method": "random"},
		{"data": "bas", "method": "set"}, {"data": "bas", "method": "set", "set-procedure": "mocanu"},
		{"data": "bas", "sampler": "pt"}, {"data": "bas", "lr-schedule": "linear"},
		{"data": "bas", "lr-schedule": "step", "lr-step-every": "2", "lr-step-factor": "0.5"},
		{"data": "x.csv", "visible": "gaussian"}, {"data": "x.csv", "visible": "gaussian", "learn-sigma": "true"}, {"data": "a.libsvm"},
		{"data": "bas", "model": "dbm"},
	}
	// Another value of each kind of setting; strings by name.
	other := map[string]string{"data": "bas2", "test-data": "t.libsvm", "format": "libsvm", "real": "unit", "method": "dense",
		"set-procedure": "mocanu", "init": "normal", "visible": "gaussian", "sampler": "pcd", "lr-schedule": "linear", "likelihood": "exact",
		"categories": "3", "model": "dbm"}
	for _, st := range experiment.Table() {
		if st.Name == "seed" || st.Name == "eval-every" {
			continue
		}
		var base experiment.Spec
		found := false
		for _, given := range bases {
			s, err := experiment.NewSpec(given)
			if err != nil {
				t.Fatalf("%v: %v", given, err)
			}
			if st.Uses == nil || st.Uses(s) {
				base, found = s, true
				break
			}
		}
		if !found {
			t.Fatalf("-%s: no base run uses it", st.Name)
		}
		changed := base
		v := st.Value(base)
		switch st.Kind() {
		case reflect.String:
			v = other[st.Name]
		case reflect.Bool:
			b, _ := strconv.ParseBool(v)
			v = strconv.FormatBool(!b)
		case reflect.Float64:
			f, _ := strconv.ParseFloat(v, 64)
			v = strconv.FormatFloat(f*0.5+0.1, 'g', -1, 64)
		default:
			n, _ := strconv.Atoi(v)
			v = strconv.Itoa(n + 1)
		}
		if err := changed.Set(st.Name, v); err != nil {
			t.Fatalf("-%s %s: %v", st.Name, v, err)
		}
		if v == st.Value(base) {
			t.Fatalf("-%s: %q is its base value", st.Name, v)
		}
		groups := GroupRuns([]Run{{Dir: "a", Spec: base.Normalize()}, {Dir: "b", Spec: changed.Normalize()}})
		if len(groups) != 2 || groups[0].Name == groups[1].Name {
			names := []string{}
			for _, g := range groups {
				names = append(names, g.Name)
			}
			t.Errorf("-%s %s vs %s: groups %q, want two names", st.Name, st.Value(base), v, names)
		}
	}
	// A dense group beside an NCG group: α_A is NCG's alone, and the dense
	// group's name does not show it.
	ncg, _ := experiment.NewSpec(experiment.Settings{"data": "bas"})
	dense, _ := experiment.NewSpec(experiment.Settings{"data": "bas", "method": "dense"})
	for _, g := range GroupRuns([]Run{{Dir: "a", Spec: ncg}, {Dir: "b", Spec: dense}}) {
		if g.Model != map[bool]string{true: "NCG p=0.5 γ=0.5", false: "dense"}[g.Spec.Engine.Method == "ncg"] {
			t.Errorf("group %q", g.Model)
		}
	}
}
