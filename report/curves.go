package report

import (
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ncg-rbm/ncg/experiment"
)

// series collects one metric per epoch over a group's runs, NaN skipped.
func series(g *Group, value func(m experiment.Metrics) float64) (epochs []int, vals [][]float64) {
	byEpoch := map[int][]float64{}
	for _, r := range g.Runs {
		for _, m := range r.Metrics {
			if v := value(m); !math.IsNaN(v) && !math.IsInf(v, 0) {
				byEpoch[m.Epoch] = append(byEpoch[m.Epoch], v)
			}
		}
	}
	for e := range byEpoch {
		epochs = append(epochs, e)
	}
	sort.Ints(epochs)
	for _, e := range epochs {
		vals = append(vals, byEpoch[e])
	}
	return epochs, vals
}

type curveMetric struct {
	column, label string
}

// Curves plots the learning curves, one panel per data set and metric: per
// group the mean over runs of the metric per epoch, with the band between
// the 25% and 75% quantiles over runs (bars at a single epoch) where a
// group has several runs. The NLL and the test accuracy get a panel each
// when measured; without either, the reconstruction error is shown.
// Accuracy axes stay within [0, 1]. Panels of Gaussian visible units say
// that their NLL is a negative log density and their reconstruction error
// the squared error of the visible means.
func Curves(groups []Group) (*Figure, error) {
	sets := dataSets(groups)
	fig := &Figure{Name: "curves", Width: figWidth, Height: figHeight}
	var spread, band, bars bool // several runs at an epoch; band or bars drawn
	var titled []*plot.Plot
	for _, set := range sets {
		has := func(col string) bool {
			for _, gi := range set {
				if e, _ := series(&groups[gi], func(m experiment.Metrics) float64 { return m.Value(col) }); len(e) > 0 {
					return true
				}
			}
			return false
		}
		// A panel's groups share a data label, so all or none are
		// real-valued.
		nll, recon := "NLL (nats)", "reconstruction error"
		if groups[set[0]].Continuous() {
			nll, recon = "NLL: −log density (nats)", "reconstruction error: squared error of the means"
		}
		var metrics []curveMetric
		if has("nll") {
			metrics = append(metrics, curveMetric{"nll", nll})
		}
		if has("test_acc") {
			metrics = append(metrics, curveMetric{"test_acc", "test accuracy"})
		}
		if len(metrics) == 0 {
			metrics = append(metrics, curveMetric{"recon_error", recon})
		}
		for k, cm := range metrics {
			p := newPlot("", "epoch", cm.label)
			if k == 0 {
				titled = append(titled, p)
			}
			lo, hi := math.Inf(1), math.Inf(-1)
			single := true // every series of the panel has one epoch
			for j, gi := range set {
				col := plotutil.Color(gi)
				epochs, vals := series(&groups[gi], func(m experiment.Metrics) float64 { return m.Value(cm.column) })
				if len(epochs) == 0 {
					continue
				}
				line := make(plotter.XYs, len(epochs))
				lower, upper := make([]float64, len(epochs)), make([]float64, len(epochs))
				several := false
				for i, e := range epochs {
					line[i] = plotter.XY{X: float64(e), Y: mean(vals[i])}
					lower[i], upper[i] = Quantile(vals[i], 0.25), Quantile(vals[i], 0.75)
					several = several || len(vals[i]) > 1
					lo, hi = math.Min(lo, math.Min(lower[i], line[i].Y)), math.Max(hi, math.Max(upper[i], line[i].Y))
				}
				spread = spread || several
				single = single && len(epochs) == 1
				switch {
				case several && len(epochs) > 1:
					poly := make(plotter.XYs, 0, 2*len(epochs))
					for i, e := range epochs {
						poly = append(poly, plotter.XY{X: float64(e), Y: lower[i]})
					}
					for i := len(epochs) - 1; i >= 0; i-- {
						poly = append(poly, plotter.XY{X: float64(epochs[i]), Y: upper[i]})
					}
					pg, err := plotter.NewPolygon(poly)
					if err != nil {
						return nil, err
					}
					pg.Color = withAlpha(col, 0x40)
					pg.LineStyle.Width = 0
					p.Add(pg)
					band = true
				case several:
					eb, err := plotter.NewYErrorBars(qbars{line, plotter.YErrors{{Low: line[0].Y - lower[0], High: upper[0] - line[0].Y}}})
					if err != nil {
						return nil, err
					}
					eb.Color = col
					// Bars of several groups at one epoch share its x:
					// caps of different widths tell them apart.
					eb.CapWidth = vg.Points(6 + 4*float64(j))
					p.Add(eb)
					bars = true
				}
				if len(epochs) == 1 {
					// A line through one point draws nothing: a marker on
					// the epoch, its value beside it.
					s, lb, err := pointMarker(line, gi)
					if err != nil {
						return nil, err
					}
					p.Add(s, lb)
					p.Legend.Add(groups[gi].Model, s)
					continue
				}
				l, err := plotter.NewLine(line)
				if err != nil {
					return nil, err
				}
				l.Color, l.Width = col, vg.Points(1.5)
				p.Add(l)
				if len(epochs) <= 40 {
					s, err := plotter.NewScatter(line)
					if err != nil {
						return nil, err
					}
					s.Color, s.Shape, s.Radius = col, plotutil.Shape(gi), vg.Points(2.5)
					p.Add(s)
					p.Legend.Add(groups[gi].Model, l, s)
				} else {
					p.Legend.Add(groups[gi].Model, l)
				}
			}
			p.X.Tick.Marker = epochTicks{}
			if single {
				p.X.Min, p.X.Max = p.X.Min-0.5, p.X.Max+0.5 // room for the values beside the points
			} else {
				padAxis(&p.X, 0.02, math.Inf(-1), math.Inf(1))
			}
			if cm.column == "test_acc" && lo <= hi {
				pad := math.Max(0.1*(hi-lo), 0.005)
				p.Y.Min, p.Y.Max = math.Max(0, lo-pad), math.Min(1, hi+pad)
			} else {
				padAxis(&p.Y, 0.05, math.Inf(-1), math.Inf(1))
			}
			fig.Panels = append(fig.Panels, p)
		}
	}
	caption := "Learning curves, one run per model"
	if spread {
		caption = "Learning curves: mean over runs"
		switch {
		case band && bars:
			caption += ", band and bars 25–75% of runs"
		case band:
			caption += ", band 25–75% of runs"
		case bars:
			caption += ", bars 25–75% of runs"
		}
	}
	for i, p := range titled {
		p.Title.Text = panelTitle(caption, i == 0, groups[sets[i][0]].DataLabel, len(sets) > 1)
	}
	return fig, nil
}

// pointMarker draws a series of one point: a filled marker of group gi's
// colour and glyph, larger than a curve's, with the value (four
// significant digits) written to its right.
func pointMarker(xy plotter.XYs, gi int) (*plotter.Scatter, *plotter.Labels, error) {
	s, err := plotter.NewScatter(xy)
	if err != nil {
		return nil, nil, err
	}
	col := plotutil.Color(gi)
	s.Color, s.Shape, s.Radius = col, filledShape(gi), vg.Points(4.5)
	labels := make([]string, len(xy))
	for i, p := range xy {
		labels[i] = strconv.FormatFloat(p.Y, 'g', 4, 64)
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: labels})
	if err != nil {
		return nil, nil, err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Color = col
		lb.TextStyle[i].XAlign, lb.TextStyle[i].YAlign = draw.XLeft, draw.YCenter
	}
	lb.Offset = vg.Point{X: vg.Points(8)}
	return s, lb, nil
}

// filledShape is the filled counterpart of plotutil.Shape(i) (a ring
// becomes a disc, a square a box, a triangle a pyramid), visible alone.
func filledShape(i int) draw.GlyphDrawer {
	switch plotutil.Shape(i).(type) {
	case draw.RingGlyph:
		return draw.CircleGlyph{}
	case draw.SquareGlyph:
		return draw.BoxGlyph{}
	case draw.TriangleGlyph:
		return draw.PyramidGlyph{}
	}
	return plotutil.Shape(i)
}
