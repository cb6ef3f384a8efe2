package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ncg-rbm/ncg/eval"
)

// printChecks writes the evidence with an AIS estimate (eval.Checks): the
// reported estimate's effective sample size, each check route, the exact
// value offered, the schedules tried, the verdict, and BDMC; each line
// indented by indent.
func printChecks(w io.Writer, indent string, ch *eval.Checks) {
	if ch == nil {
		return
	}
	rep := ch.Estimates[0]
	if rep.Route != eval.RouteExact {
		fmt.Fprintf(w, "%sESS %.1f of %d runs (the effective sample size of the importance weights)\n", indent, rep.ESS, rep.Runs)
	}
	var routes []string
	for _, e := range ch.Estimates[1:] {
		if e.Route == eval.RouteExact {
			routes = append(routes, fmt.Sprintf("exact %.4f", e.LogZ))
			continue
		}
		routes = append(routes, fmt.Sprintf("%s %.4f (±3σ %s…%.4f, %d runs, ESS %.1f)", e.Route, e.LogZ, bound(e.LogZLo), e.LogZHi, e.Runs, e.ESS))
	}
	if len(routes) > 0 {
		fmt.Fprintf(w, "%schecks of log Z: %s\n", indent, strings.Join(routes, "; "))
	}
	if ch.ExactBits > 0 {
		fmt.Fprintf(w, "%sthe exact log Z is within reach (2^%d states): -likelihood exact gives it\n", indent, ch.ExactBits)
	}
	if len(ch.Intervals) > 1 {
		s := make([]string, len(ch.Intervals))
		for k, n := range ch.Intervals {
			s[k] = strconv.Itoa(n)
		}
		fmt.Fprintf(w, "%sschedule grown while the verdict fired: %s intervals\n", indent, strings.Join(s, " → "))
	}
	v := ch.Verdict
	if v.Fired {
		fmt.Fprintf(w, "%sverdict: FIRED, %s is %.4f nats %s the estimate: %s (docs/cli.md, \"When the verdict fires\")\n",
			indent, v.Against, math.Abs(v.Disagreement), map[bool]string{true: "above", false: "below"}[v.Disagreement > 0], v.Reason)
	} else {
		fmt.Fprintf(w, "%sverdict: quiet (%s)\n", indent, v.Reason)
	}
	if b := ch.BDMC; b != nil {
		fmt.Fprintf(w, "%sBDMC on %d rows drawn from the model (%d intervals): log Z between %.4f (forward AIS) and %.4f (reverse), gap %.4f nats; exact %.4f\n",
			indent, b.Rows, b.Intervals, b.LogZLower, b.LogZUpper, b.Gap, b.LogZ)
	}
}

// bound writes a lower bound, −Inf as "−∞".
func bound(v float64) string {
	if math.IsInf(v, -1) || math.IsNaN(v) {
		return "−∞"
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}
