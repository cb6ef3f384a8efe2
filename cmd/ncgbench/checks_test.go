package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/eval"
)

// TestEvalChecks: eval prints the checks of its AIS estimate: with -checks
// on, the other routes and the exact log Z (the one -exact gives), and a
// verdict that fires exactly when that lies outside the estimate's ±3σ
// interval; -bdmc adds BDMC's bounds, with the exact log Z its rows
// computed; the text names the ESS and the verdict. Bad values of the
// flags, and flags the likelihood leaves unused, exit with status 2.
func TestEvalChecks(t *testing.T) {
	dir := t.TempDir()
	trainRun(t, dir)
	exact := evalRun(t, dir, "-model", "r", "-exact")
	out, errb, code := ncgbench(t, dir, "eval", "-json", "-quiet", "-model", "r", "-ais", "-ais-runs", "8", "-ais-betas", "500", "-checks", "on", "-bdmc", "30")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var r struct {
		LogZ   float64      `json:"log_z"`
		LogZLo *float64     `json:"log_z_lo"`
		LogZHi float64      `json:"log_z_hi"`
		Checks *eval.Checks `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	c := r.Checks
	if c == nil || len(c.Estimates) != 4 || c.Estimates[0].LogZ != r.LogZ || c.Estimates[3].Route != eval.RouteExact || c.Estimates[3].LogZ != *exact.LogZ {
		t.Fatalf("checks %+v, log Z %v, exact %v", c, r.LogZ, *exact.LogZ)
	}
	lo := math.Inf(-1)
	if r.LogZLo != nil {
		lo = *r.LogZLo
	}
	if inside := lo <= *exact.LogZ && *exact.LogZ <= r.LogZHi; c.Verdict.Fired == inside {
		t.Errorf("exact %v, estimate [%v, %v]: verdict %+v", *exact.LogZ, lo, r.LogZHi, c.Verdict)
	}
	if b := c.BDMC; b == nil || b.Rows != 30 || b.Intervals != 500 || b.LogZ != *exact.LogZ || b.LogZLower != r.LogZ {
		t.Errorf("BDMC %+v", c.BDMC)
	}
	out, _, code = ncgbench(t, dir, "eval", "-quiet", "-model", "r", "-ais", "-ais-runs", "8", "-ais-betas", "500")
	if code != 0 || !strings.Contains(out, "ESS") || !strings.Contains(out, "verdict: ") || !strings.Contains(out, "checks of log Z: uniform") ||
		!strings.Contains(out, "exact log Z is within reach (2^16 states)") {
		t.Errorf("text output (exit %d):\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"-checks", "maybe"}, "-checks"},
		{[]string{"-bdmc", "-1"}, "-bdmc"},
		{[]string{"-exact", "-ais-max-betas", "40000"}, "-ais-max-betas"},
		{[]string{"-exact", "-checks", "on"}, "-checks"},
		{[]string{"-ais", "-ais-betas", "500", "-ais-max-betas", "700"}, "-ais-max-betas"},
		{[]string{"-likelihood", "none", "-bdmc", "5"}, "-bdmc"},
	} {
		_, errb, code := ncgbench(t, dir, append([]string{"eval", "-quiet", "-model", "r"}, c.args...)...)
		if code != 2 || !strings.Contains(errb, c.flag) {
			t.Errorf("%v: exit %d, want 2 and a message naming %s:\n%s", c.args, code, c.flag, errb)
		}
	}
}
