package eval

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestJudge: the verdict's rules on estimates made up by hand.
func TestJudge(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	rep := Estimate{Route: RouteData, LogZ: 10, LogZLo: 9.9, LogZHi: 10.1, SE: 0.03, ESS: 80}
	exact := func(z float64) Estimate {
		return Estimate{Route: RouteExact, LogZ: z, LogZLo: z, LogZHi: z, ESS: nan, SE: nan}
	}
	route := func(r Route, z, se float64) Estimate {
		return Estimate{Route: r, LogZ: z, LogZLo: z - 3*se, LogZHi: z + 3*se, SE: se, ESS: 10}
	}
	markov := math.Log(1000)
	for _, c := range []struct {
		name    string
		rep     Estimate
		others  []Estimate
		fired   bool
		against Route
		d       float64
	}{
		{"exact inside", rep, []Estimate{exact(10.05)}, false, "", nan},
		{"exact above", rep, []Estimate{exact(12.5)}, true, RouteExact, 2.5},
		{"exact below", rep, []Estimate{exact(9.5)}, true, RouteExact, -0.5},
		{"exact below, no lower bound", Estimate{LogZ: 10, LogZLo: math.Inf(-1), LogZHi: 10.1}, []Estimate{exact(3)}, false, "", nan},
		{"the exact value decides over routes", rep, []Estimate{route(RouteUniform, 30, 0.1), exact(10)}, false, "", nan},
		{"route above by more than 3 SE", rep, []Estimate{route(RouteHidden, 10.1+0.3+1e-9, 0.1)}, true, RouteHidden, 0.4 + 1e-9},
		{"route above by less than 3 SE", rep, []Estimate{route(RouteHidden, 10.1+0.3-1e-9, 0.1)}, false, "", nan},
		{"route far above, SE capped by Markov", rep, []Estimate{route(RouteUniform, 10.1+markov+1e-6, 5)}, true, RouteUniform, 0.1 + markov + 1e-6},
		{"route above by less than Markov with a huge SE", rep, []Estimate{route(RouteUniform, 10.1+markov-1e-6, 5)}, false, "", nan},
		{"one run: no SE, Markov", rep, []Estimate{{Route: RouteHidden, LogZ: 20, LogZLo: math.Inf(-1), LogZHi: inf, SE: nan}}, true, RouteHidden, 10},
		{"route below", rep, []Estimate{route(RouteHidden, 5, 0.01)}, false, "", nan},
		{"the larger of two", rep, []Estimate{route(RouteUniform, 12, 0.1), route(RouteHidden, 15, 0.1)}, true, RouteHidden, 5},
		{"no upper bound", Estimate{LogZ: 10, LogZLo: math.Inf(-1), LogZHi: inf}, []Estimate{route(RouteHidden, 40, 0.1)}, false, "", nan},
	} {
		v := judge(c.rep, c.others)
		if v.Fired != c.fired || v.Against != c.against || !(math.Abs(v.Disagreement-c.d) < 1e-9 || math.IsNaN(v.Disagreement) && math.IsNaN(c.d)) || v.Reason == "" {
			t.Errorf("%s: verdict %+v, want fired %v against %q disagreement %v", c.name, v, c.fired, c.against, c.d)
		}
	}
	if v := judge(rep, nil); v.Fired || !strings.Contains(v.Reason, "no check") {
		t.Errorf("no checks: %+v", v)
	}
}

// TestCheckRoutes: each unit type's check routes are two estimators that
// differ from the reported one in base model or in the marginal they
// anneal, RouteData standing in when the reported route is one of them.
func TestCheckRoutes(t *testing.T) {
	for _, c := range []struct {
		m        *Model
		reported Route
		want     []Route
	}{
		{randomModel(5, 4, 1, 1), RouteData, []Route{RouteUniform, RouteHidden}},
		{randomModel(5, 4, 1, 1), RouteUniform, []Route{RouteHidden, RouteData}},
		{randomCategoricalModel([]int{2, 3}, 4, 1, 1), RouteData, []Route{RouteUniform, RouteHidden}},
		{randomGaussModel(5, 4, 1, false, 1), RouteData, []Route{RouteHidden, RouteHiddenData}},
		{randomGaussModel(5, 4, 1, false, 1), RouteUniform, []Route{RouteHidden, RouteHiddenData}},
	} {
		got, err := CheckRoutes(c.m, c.reported)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(c.want) || got[0] != c.want[0] || got[1] != c.want[1] {
			t.Errorf("%s, reported %s: routes %v, want %v", c.m.Visible.Name(), c.reported, got, c.want)
		}
	}
}

// TestFitHiddenBase: logit of the smoothed mean of σ(b + C·x) over the
// rows, computed here in float64 for three rows of a binary model.
func TestFitHiddenBase(t *testing.T) {
	m := randomModel(6, 4, 1, 3)
	x := []uint8{1, 0, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0}
	got, err := FitHiddenBase(context.Background(), m, binRows(x, 3, 6), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < m.H; i++ {
		var s float64
		for r := 0; r < 3; r++ {
			a := float64(m.HiddenBias[i])
			for j := 0; j < 6; j++ {
				a += float64(x[r*6+j]) * float64(m.C[j*m.H+i])
			}
			s += 1 / (1 + math.Exp(-a))
		}
		p := (s + 0.025*3) / (3 + 2*0.025*3)
		if want := math.Log(p / (1 - p)); math.Abs(float64(got[i])-want) > 1e-5 {
			t.Errorf("unit %d: %v, want %v", i, got[i], want)
		}
	}
}

// TestCheckAISDeterminism: the checks' estimates are bit-identical for 1
// and 3 workers, and each route draws from its own streams (its first log
// weights differ from the reported AIS's of the same base model).
func TestCheckAISDeterminism(t *testing.T) {
	m := randomGaussModel(9, 8, 0.5, false, 2)
	train := realRows(someRealData(m, 50, 3), 50, 9)
	run := func(workers int) *Checks {
		cfg := AISConfig{Runs: 12, Betas: UniformSchedule(80), Seed: 4, Workers: workers}
		rep, err := AIS(context.Background(), m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := CheckAIS(context.Background(), m, train, rep, CheckConfig{Reported: cfg, Routes: []Route{RouteData, RouteHidden, RouteHiddenData}})
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}
	a, b := run(1), run(3)
	if len(a.Estimates) != 4 || a.Estimates[0].Route != RouteUniform {
		t.Fatalf("estimates %+v", a.Estimates)
	}
	for k := range a.Estimates {
		if math.Float64bits(a.Estimates[k].LogZ) != math.Float64bits(b.Estimates[k].LogZ) {
			t.Errorf("%s: log Z %v with 1 worker, %v with 3", a.Estimates[k].Route, a.Estimates[k].LogZ, b.Estimates[k].LogZ)
		}
		if a.Estimates[k].Runs != []int{12, 3, 3, 3}[k] {
			t.Errorf("%s: %d runs", a.Estimates[k].Route, a.Estimates[k].Runs)
		}
	}
	// A route of the reported base model with as many runs draws from
	// other streams than the reported AIS, and two such routes from other
	// streams than each other.
	cfg := AISConfig{Runs: 6, Betas: UniformSchedule(50), Seed: 4}
	rep, err := AIS(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := CheckAIS(context.Background(), m, train, rep, CheckConfig{Reported: cfg, Runs: 6, Routes: []Route{RouteUniform, RouteUniform}})
	if err != nil {
		t.Fatal(err)
	}
	if e := ch.Estimates; e[1].LogZ == e[0].LogZ || e[2].LogZ == e[1].LogZ {
		t.Errorf("routes share streams: log Z %v, %v, %v", e[0].LogZ, e[1].LogZ, e[2].LogZ)
	}
	if _, err := CheckAIS(context.Background(), m, train, &AISResult{Runs: 4}, CheckConfig{Routes: []Route{"sideways"}}); err == nil {
		t.Error("an unknown route accepted")
	}
}

// TestChecksJSON: the checks' JSON form has the documented keys, null for
// values that are not finite, and reads back as it was written (null as
// NaN).
func TestChecksJSON(t *testing.T) {
	nan := math.NaN()
	c := Checks{
		Estimates: []Estimate{{RouteData, 10.5, math.Inf(-1), 11, 3.5, 0.2, 100, 14500}, {RouteExact, 12, 12, 12, nan, nan, 0, 0}},
		ExactBits: 0, Verdict: Verdict{true, RouteExact, 1.5, "why"}, Intervals: []int{14500, 29000},
		BDMC: &BDMCResult{Rows: 10, Intervals: 29000, Seed: 3, LogZLower: 10.5, LogZUpper: 12.25, Gap: 1.75, LogPLower: -20, LogPUpper: -18.25, LogZ: 12},
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"estimates":[{"route":"data","log_z":10.5,"log_z_lo":null,"log_z_hi":11,"ess":3.5,"se":0.2,"runs":100,"intervals":14500},` +
		`{"route":"exact","log_z":12,"log_z_lo":12,"log_z_hi":12,"ess":null,"se":null}],` +
		`"verdict":{"fired":true,"against":"exact","disagreement":1.5,"reason":"why"},"intervals":[14500,29000],` +
		`"bdmc":{"rows":10,"intervals":29000,"seed":3,"log_z_lower":10.5,"log_z_upper":12.25,"gap":1.75,"log_p_lower":-20,"log_p_upper":-18.25,"log_z_exact":12}}`
	if string(b) != want {
		t.Errorf("JSON\n%s\nwant\n%s", b, want)
	}
	var back Checks
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(back.Estimates[0].LogZLo) || !math.IsNaN(back.Estimates[1].ESS) || back.Estimates[0].LogZ != 10.5 || back.Estimates[0].Runs != 100 ||
		back.Verdict != c.Verdict || *back.BDMC != *c.BDMC || len(back.Intervals) != 2 {
		t.Errorf("read back %+v", back)
	}
	b, err = json.Marshal(Verdict{Disagreement: nan, Reason: "quiet"})
	if err != nil || string(b) != `{"fired":false,"disagreement":null,"reason":"quiet"}` {
		t.Errorf("quiet verdict: %s, %v", b, err)
	}
}
