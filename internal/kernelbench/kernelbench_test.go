package kernelbench

import (
	"regexp"
	"runtime"
	"testing"

	"github.com/ncg-rbm/ncg/kernel"
)

// TestCases: every name is unique and benchstat-friendly
// (<kernel>/<tier>/<shape>, no spaces), every tier this CPU runs has the
// standard cases, and each case runs.
func TestCases(t *testing.T) {
	name := regexp.MustCompile(`^[a-z0-9-]+/[a-z0-9-]+/[a-z0-9-]+$`)
	seen := map[string]bool{}
	cs := Cases()
	for _, c := range cs {
		if !name.MatchString(c.Name) {
			t.Errorf("name %q is not <kernel>/<tier>/<shape>", c.Name)
		}
		if seen[c.Name] {
			t.Errorf("duplicate case %s", c.Name)
		}
		seen[c.Name] = true
		if !(c.Work > 0) || c.Call == nil {
			t.Errorf("%s: incomplete case", c.Name)
		}
	}
	want := []string{"dense/gonum/x784-h500-c8", "dense/gonum-1core/x784-h500-c64", "copy/go/x784-h500"}
	for _, tier := range kernel.Tiers() {
		want = append(want, "dense/"+tier+"/x784-h500-c16", "binary13/"+tier+"/x784-h500-c64",
			"sigmoid/"+tier+"/n32000", "updatencg/"+tier+"/x784-h500", "rowrate/"+tier+"/c8-rows112",
			"softmaxsample/"+tier+"/connect4-u126", "sigmoidbernoulli/"+tier+"/connect4-u126")
	}
	for _, n := range want {
		if !seen[n] {
			t.Errorf("no case %s", n)
		}
	}
	for _, c := range cs {
		restore, err := c.Use()
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		c.Call()
		restore()
	}
}

// TestUse: a case runs under its tier and GOMAXPROCS, and restore puts
// both back.
func TestUse(t *testing.T) {
	tier, procs := kernel.Tier(), runtime.GOMAXPROCS(0)
	for _, c := range []Case{{Tier: "generic", Procs: 1}, {Tier: "generic"}, {Procs: 1}} {
		restore, err := c.Use()
		if err != nil {
			t.Fatal(err)
		}
		if c.Tier != "" && kernel.Tier() != c.Tier {
			t.Errorf("%+v: tier %s", c, kernel.Tier())
		}
		if c.Procs > 0 && runtime.GOMAXPROCS(0) != c.Procs {
			t.Errorf("%+v: GOMAXPROCS %d", c, runtime.GOMAXPROCS(0))
		}
		restore()
		if kernel.Tier() != tier || runtime.GOMAXPROCS(0) != procs {
			t.Errorf("%+v: after restore tier %s, GOMAXPROCS %d; want %s, %d", c, kernel.Tier(), runtime.GOMAXPROCS(0), tier, procs)
		}
	}
	if _, err := (Case{Tier: "nonsense"}).Use(); err == nil {
		t.Error("Use of an unknown tier succeeded")
	}
}
