package report

import (
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/ncg-rbm/ncg/experiment"
)

// Degrees plots the hidden-unit degree (active data connections of a
// hidden unit) per epoch, one panel per data set: per group the mean over
// runs of the minimum, mean and maximum. Over several epochs they are
// lines (mean solid, min and max dashed); a group evaluated at one epoch
// only gets a point at the mean and a bar from min to max.
func Degrees(groups []Group) (*Figure, error) {
	sets := dataSets(groups)
	fig := &Figure{Name: "degrees", Width: figWidth, Height: figHeight}
	var lines, points, several bool
	for _, set := range sets {
		p := newPlot("", "epoch", "active connections per hidden unit")
		for _, gi := range set {
			col := plotutil.Color(gi)
			var xy [3]plotter.XYs // mean, min, max
			for k, get := range []func(experiment.Metrics) float64{
				func(m experiment.Metrics) float64 { return m.DegreeMean },
				func(m experiment.Metrics) float64 { return notNaN(m.DegreeMean, float64(m.DegreeMin)) },
				func(m experiment.Metrics) float64 { return notNaN(m.DegreeMean, float64(m.DegreeMax)) },
			} {
				epochs, vals := series(&groups[gi], get)
				for i, e := range epochs {
					xy[k] = append(xy[k], plotter.XY{X: float64(e), Y: mean(vals[i])})
					several = several || len(vals[i]) > 1
				}
			}
			switch {
			case len(xy[0]) == 0:
				continue
			case len(xy[0]) == 1 && len(xy[1]) == 1 && len(xy[2]) == 1:
				m := xy[0][0].Y
				eb, err := plotter.NewYErrorBars(qbars{xy[0], plotter.YErrors{{Low: m - xy[1][0].Y, High: xy[2][0].Y - m}}})
				if err != nil {
					return nil, err
				}
				eb.Color = col
				s, err := plotter.NewScatter(xy[0])
				if err != nil {
					return nil, err
				}
				s.Color, s.Shape, s.Radius = col, plotutil.Shape(gi), vg.Points(3)
				p.Add(eb, s)
				p.Legend.Add(groups[gi].Model, s)
				points = true
			default:
				var first *plotter.Line
				for k := range xy {
					if len(xy[k]) == 0 {
						continue
					}
					l, err := plotter.NewLine(xy[k])
					if err != nil {
						return nil, err
					}
					l.Color = col
					if k == 0 {
						l.Width = vg.Points(1.5)
						first = l
					} else {
						l.Width = vg.Points(0.8)
						l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
					}
					p.Add(l)
				}
				p.Legend.Add(groups[gi].Model, first)
				lines = true
			}
		}
		p.Y.Min = 0
		fig.Panels = append(fig.Panels, p)
	}
	var parts []string
	if lines {
		parts = append(parts, "mean (solid), min and max (dashed)")
	}
	if points {
		parts = append(parts, "mean (point), min to max (bar)")
	}
	caption := "Hidden degree"
	if several {
		caption += ", averaged over runs"
	}
	if len(parts) > 0 {
		caption += ": " + strings.Join(parts, "; ")
	}
	for i, p := range fig.Panels {
		p.Title.Text = panelTitle(caption, i == 0, groups[sets[i][0]].Data, len(sets) > 1)
	}
	return fig, nil
}

// notNaN returns v, or NaN when guard is NaN (a row without degrees).
func notNaN(guard, v float64) float64 {
	if math.IsNaN(guard) {
		return math.NaN()
	}
	return v
}

// DensityScatter plots each finished run's final against its initial
// connection density, one colour and glyph per group, with the diagonal.
func DensityScatter(groups []Group) (*Figure, error) {
	p := newPlot("Connection density: initial against final (one point per run)", "initial density", "final density")
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		return nil, err
	}
	diag.Color = color.Gray{Y: 0x90}
	diag.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(diag)
	p.Legend.Top = false
	p.Legend.Left = false
	for gi := range groups {
		var xy plotter.XYs
		for _, r := range groups[gi].Runs {
			if !r.Finished() {
				continue
			}
			x, y := r.Result.InitDensity, r.Result.Final.Density
			if math.IsNaN(x) || math.IsNaN(y) {
				continue
			}
			xy = append(xy, plotter.XY{X: x, Y: y})
		}
		if len(xy) == 0 {
			continue
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		s.Color, s.Shape, s.Radius = plotutil.Color(gi), plotutil.Shape(gi), vg.Points(3.5)
		p.Add(s)
		p.Legend.Add(groups[gi].Name, s)
	}
	return &Figure{Name: "density", Panels: []*plot.Plot{p}, Width: figWidth, Height: figHeight}, nil
}
