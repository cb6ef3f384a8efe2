package main

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"testing"
)

// TestBaselines checks that the merged baselines select, package by
// package and environment by environment, exactly the tests the
// mutations name, and keep apart the patterns an alternation would
// change.
func TestBaselines(t *testing.T) {
	muts := []Mutation{
		{Name: "a", Package: "./p/", Run: "^TestA$"},
		{Name: "b", Package: "./p/", Run: "^TestB$|^TestC$"},
		{Name: "a-again", Package: "./p/", Run: "^TestA$"},
		{Name: "d-generic", Package: "./p/", Run: "^TestD$", Env: []string{"K=generic"}},
		{Name: "e-other", Package: "./q/", Run: "^TestE$"},
		{Name: "sub", Package: "./p/", Run: "^TestF$/^small$"},
		{Name: "all", Package: "./q/", Run: ""},
	}
	base := baselines(muts)
	type cmd struct{ pkg, env, run string }
	var got []cmd
	for _, b := range base {
		env := ""
		if len(b.Env) > 0 {
			env = b.Env[0]
		}
		got = append(got, cmd{b.Package, env, b.Run})
	}
	if len(got) != 5 {
		t.Fatalf("%d baselines, want 5 (./p/, ./p/ generic, ./q/, the subtest, every test of ./q/): %+v", len(got), got)
	}
	find := func(pkg, env string) string {
		for _, c := range got {
			if c.pkg == pkg && c.env == env && c.run != "" && !regexp.MustCompile(`/`).MatchString(c.run) {
				return c.run
			}
		}
		t.Fatalf("no merged baseline for %s %q in %+v", pkg, env, got)
		return ""
	}
	matches := func(pattern string) []string {
		re := regexp.MustCompile(pattern)
		var m []string
		for _, name := range []string{"TestA", "TestB", "TestC", "TestD", "TestE", "TestAB", "XTestA"} {
			if re.MatchString(name) {
				m = append(m, name)
			}
		}
		return m
	}
	for _, c := range []struct {
		pkg, env string
		want     []string
	}{
		{"./p/", "", []string{"TestA", "TestB", "TestC"}},
		{"./p/", "K=generic", []string{"TestD"}},
		{"./q/", "", []string{"TestE"}},
	} {
		if m := matches(find(c.pkg, c.env)); !slices.Equal(m, c.want) {
			t.Errorf("baseline of %s %q selects %v, want %v", c.pkg, c.env, m, c.want)
		}
	}
	if !slices.Contains(got, cmd{"./p/", "", "^TestF$/^small$"}) {
		t.Errorf("the subtest pattern was merged or lost: %+v", got)
	}
	if !slices.Contains(got, cmd{"./q/", "", ""}) {
		t.Errorf("the run of every test of ./q/ was merged or lost: %+v", got)
	}
}

// TestShare checks -share's choice against its definition: about 1/N of
// the names for each seed, the same names for the same seed, other names
// for another seed, and every name within a few seeds.
func TestShare(t *testing.T) {
	var names []string
	for i := range 400 {
		names = append(names, fmt.Sprintf("mutation-%d", i))
	}
	chosen := func(seed string) map[string]bool {
		c := map[string]bool{}
		for _, n := range names {
			if inShare(n, 2, seed) {
				c[n] = true
			}
		}
		return c
	}
	a, a2, b := chosen("commit-a"), chosen("commit-a"), chosen("commit-b")
	// Binomial(400, 1/2): 200 ± 10; 150 and 250 are 5 standard deviations.
	for seed, c := range map[string]map[string]bool{"commit-a": a, "commit-b": b} {
		if len(c) < 150 || len(c) > 250 {
			t.Errorf("seed %s chose %d of 400 names at share 2", seed, len(c))
		}
	}
	if !maps.Equal(a, a2) {
		t.Error("the same seed chose different names")
	}
	if maps.Equal(a, b) {
		t.Error("two seeds chose the same names")
	}
	// A name is left out by 16 seeds with probability 2⁻¹⁶, so all 400
	// are covered with probability 0.994; the seeds are fixed, so this
	// holds or fails for good.
	covered := map[string]bool{}
	for i := range 16 {
		maps.Copy(covered, chosen(fmt.Sprintf("commit-%d", i)))
	}
	if len(covered) != len(names) {
		t.Errorf("16 seeds covered %d of %d names", len(covered), len(names))
	}
	for _, n := range names {
		if !inShare(n, 1, "any") {
			t.Fatalf("share 1 left out %s", n)
		}
	}
}
