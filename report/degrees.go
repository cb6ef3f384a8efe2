package report

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/ncg-rbm/ncg/experiment"
)

// maxDegreePoints bounds the points of a degree series: over more
// epochs they are binned (see binDegrees).
const maxDegreePoints = 200

// Degrees plots the hidden-unit degree (active data connections of a
// hidden unit) per epoch, one panel per data set: per group the mean over
// runs of the minimum, mean and maximum. Over several epochs the mean is a
// line and the range from min to max a shaded band; over more than
// maxDegreePoints epochs, per bin of epochs (see binDegrees), so that the
// minimum and maximum, which move by whole connections from epoch to
// epoch, do not jitter into hatching. A group evaluated at one epoch only
// gets a point at the mean, with its value, and a bar from min to max.
func Degrees(groups []Group) (*Figure, error) {
	sets := dataSets(groups)
	fig := &Figure{Name: "degrees", Width: figWidth, Height: figHeight}
	var lines, points, several bool
	binned := 0 // the largest bin, in epochs
	for _, set := range sets {
		p := newPlot("", "epoch", "active connections per hidden unit")
		p.X.Tick.Marker = epochTicks{}
		single := true
		for j, gi := range set {
			col := plotutil.Color(gi)
			var pts []degreePoint
			var xy [3][]float64 // mean, min, max per epoch
			var epochs []int
			for k, get := range []func(experiment.Metrics) float64{
				func(m experiment.Metrics) float64 { return m.DegreeMean },
				func(m experiment.Metrics) float64 { return notNaN(m.DegreeMean, float64(m.DegreeMin)) },
				func(m experiment.Metrics) float64 { return notNaN(m.DegreeMean, float64(m.DegreeMax)) },
			} {
				es, vals := series(&groups[gi], get)
				epochs = es
				for _, v := range vals {
					xy[k] = append(xy[k], mean(v))
					several = several || len(v) > 1
				}
			}
			if len(epochs) == 0 || len(xy[1]) != len(epochs) || len(xy[2]) != len(epochs) {
				continue
			}
			for i, e := range epochs {
				pts = append(pts, degreePoint{epoch: float64(e), mean: xy[0][i], min: xy[1][i], max: xy[2][i]})
			}
			if len(pts) == 1 {
				m := plotter.XYs{{X: pts[0].epoch, Y: pts[0].mean}}
				eb, err := plotter.NewYErrorBars(qbars{m, plotter.YErrors{{Low: pts[0].mean - pts[0].min, High: pts[0].max - pts[0].mean}}})
				if err != nil {
					return nil, err
				}
				eb.Color, eb.CapWidth = col, vg.Points(6+4*float64(j))
				s, lb, err := pointMarker(m, gi)
				if err != nil {
					return nil, err
				}
				p.Add(eb, s, lb)
				p.Legend.Add(groups[gi].Model, s)
				points = true
				continue
			}
			single = false
			pts, per := binDegrees(pts, maxDegreePoints)
			binned = max(binned, per)
			band := make(plotter.XYs, 0, 2*len(pts))
			line := make(plotter.XYs, len(pts))
			for i, d := range pts {
				band = append(band, plotter.XY{X: d.epoch, Y: d.min})
				line[i] = plotter.XY{X: d.epoch, Y: d.mean}
			}
			for i := len(pts) - 1; i >= 0; i-- {
				band = append(band, plotter.XY{X: pts[i].epoch, Y: pts[i].max})
			}
			pg, err := plotter.NewPolygon(band)
			if err != nil {
				return nil, err
			}
			pg.Color = withAlpha(col, 0x38)
			pg.LineStyle.Width = 0
			l, err := plotter.NewLine(line)
			if err != nil {
				return nil, err
			}
			l.Color, l.Width = col, vg.Points(1.5)
			p.Add(pg, l)
			p.Legend.Add(groups[gi].Model, l)
			lines = true
		}
		if single {
			p.X.Min, p.X.Max = p.X.Min-0.5, p.X.Max+0.5 // room for the values beside the points
		} else {
			padAxis(&p.X, 0.02, math.Inf(-1), math.Inf(1))
		}
		// From 0 where the data allow, with room above the highest maximum
		// and below a minimum of 0.
		padAxis(&p.Y, 0.05, math.Inf(-1), math.Inf(1))
		if p.Y.Min > 0 {
			p.Y.Min = 0
		}
		fig.Panels = append(fig.Panels, p)
	}
	var parts []string
	if lines {
		part := "mean (line), min to max (shaded)"
		if binned > 1 {
			part += fmt.Sprintf(", in bins of %d epochs", binned)
		}
		parts = append(parts, part)
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
		p.Title.Text = panelTitle(caption, i == 0, groups[sets[i][0]].DataLabel, len(sets) > 1)
	}
	return fig, nil
}

// degreePoint is a group's hidden degree at an epoch (or over a bin of
// epochs, at its middle).
type degreePoint struct {
	epoch, mean, min, max float64
}

// binDegrees returns pts (in epoch order) in at most maxPoints points: if
// there are more, in bins of per = ⌈len(pts)/maxPoints⌉ consecutive
// points (the last may hold fewer), each at the mean of its epochs with
// the mean of its means, its lowest minimum and its highest maximum, so
// that the band from min to max covers every epoch's range.
func binDegrees(pts []degreePoint, maxPoints int) (out []degreePoint, per int) {
	if len(pts) <= maxPoints {
		return pts, 1
	}
	per = (len(pts) + maxPoints - 1) / maxPoints
	for i := 0; i < len(pts); i += per {
		bin := pts[i:min(i+per, len(pts))]
		b := degreePoint{min: math.Inf(1), max: math.Inf(-1)}
		for _, d := range bin {
			b.epoch += d.epoch
			b.mean += d.mean
			b.min, b.max = math.Min(b.min, d.min), math.Max(b.max, d.max)
		}
		b.epoch /= float64(len(bin))
		b.mean /= float64(len(bin))
		out = append(out, b)
	}
	return out, per
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
