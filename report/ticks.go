package report

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// distinctTicks is gonum/plot's default ticker with labels that tell the
// ticks apart. Over a narrow range the default labels have too few digits
// (10.975, 11 and 11.025 all read "11"); then every label gets the fewest
// digits with which the labels are distinct and each reads as its value to
// within a tenth of the step between ticks.
type distinctTicks struct{}

func (distinctTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	var major []int
	for i, tk := range ticks {
		if tk.Label != "" {
			major = append(major, i)
		}
	}
	if len(major) < 2 {
		return ticks
	}
	step := math.Inf(1)
	big := 0.0
	for k, i := range major {
		if k > 0 {
			step = math.Min(step, math.Abs(ticks[i].Value-ticks[major[k-1]].Value))
		}
		big = math.Max(big, math.Abs(ticks[i].Value))
	}
	labels := make([]string, len(major))
	good := func() bool {
		seen := make(map[string]bool, len(labels))
		for k, l := range labels {
			v, err := strconv.ParseFloat(l, 64)
			if seen[l] || err != nil || math.Abs(v-ticks[major[k]].Value) > step/10 {
				return false
			}
			seen[l] = true
		}
		return true
	}
	for k, i := range major {
		labels[k] = ticks[i].Label
	}
	if good() {
		return ticks
	}
	for digits := 0; digits <= 17; digits++ {
		for k, i := range major {
			if big < 1e9 { // decimals
				labels[k] = strconv.FormatFloat(ticks[i].Value, 'f', digits, 64)
			} else { // significant digits, with an exponent
				labels[k] = strconv.FormatFloat(ticks[i].Value, 'g', digits+1, 64)
			}
		}
		if good() {
			for k, i := range major {
				ticks[i].Label = labels[k]
			}
			return ticks
		}
	}
	return ticks
}

// epochTicks marks whole epochs only: each epoch over a short range, else
// the default ticks that fall on whole epochs (the others unlabelled).
type epochTicks struct{}

func (epochTicks) Ticks(min, max float64) []plot.Tick {
	if max-min <= 12 {
		var ticks []plot.Tick
		for e := math.Ceil(min); e <= max; e++ {
			ticks = append(ticks, plot.Tick{Value: e, Label: strconv.Itoa(int(e))})
		}
		return ticks
	}
	ticks := distinctTicks{}.Ticks(min, max)
	for i, tk := range ticks {
		if tk.Value != math.Trunc(tk.Value) {
			ticks[i].Label = ""
		}
	}
	return ticks
}

// padAxis widens a's range by frac of its span on each side, so that no
// data lie on the frame, staying within [lo, hi] (±Inf: no bound) where
// the data do. An axis without finite data or with an empty span is left
// to widen.
func padAxis(a *plot.Axis, frac, lo, hi float64) {
	if math.IsInf(a.Min, 0) || math.IsInf(a.Max, 0) || math.IsNaN(a.Min) || math.IsNaN(a.Max) || a.Max <= a.Min {
		return
	}
	d := frac * (a.Max - a.Min)
	a.Min, a.Max = a.Min-d, a.Max+d
	if a.Min < lo && a.Min+d >= lo {
		a.Min = lo
	}
	if a.Max > hi && a.Max-d <= hi {
		a.Max = hi
	}
}
