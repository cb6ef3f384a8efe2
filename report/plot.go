package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	_ "gonum.org/v1/plot/vg/vgimg" // png
	_ "gonum.org/v1/plot/vg/vgsvg" // svg

	"github.com/ncg-rbm/ncg/experiment"
)

// Figure is one figure: one or more panels stacked vertically.
type Figure struct {
	Name   string // file name without extension: curves, degrees, density
	Panels []*plot.Plot
	Width  vg.Length
	Height vg.Length // of one panel
}

// Figures returns the three figures of a report: learning curves, hidden
// degrees and initial against final density.
func Figures(groups []Group) ([]*Figure, error) {
	var out []*Figure
	for _, f := range []func([]Group) (*Figure, error){Curves, Degrees, DensityScatter} {
		fig, err := f(groups)
		if err != nil {
			return nil, err
		}
		out = append(out, fig)
	}
	return out, nil
}

// WriteTo renders the figure in format ("png", "svg", or another format
// gonum/plot knows) to w.
func (f *Figure) WriteTo(w io.Writer, format string) (err error) {
	for _, p := range f.Panels {
		widen(&p.X)
		widen(&p.Y)
	}
	// gonum/plot reports what it cannot draw by panicking; a figure that
	// cannot be drawn is an error of this figure, not a crash of the run.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("report: drawing figure %s: %v", f.Name, r)
		}
	}()
	n := len(f.Panels)
	c, err := draw.NewFormattedCanvas(f.Width, f.Height*vg.Length(n), format)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	if n == 1 {
		f.Panels[0].Draw(dc)
	} else {
		rows := make([][]*plot.Plot, n)
		for i, p := range f.Panels {
			rows[i] = []*plot.Plot{p}
		}
		tiles := draw.Tiles{Rows: n, Cols: 1, PadY: vg.Millimeter * 4, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2,
			PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
		cs := plot.Align(rows, tiles, dc)
		for i, p := range f.Panels {
			p.Draw(cs[i][0])
		}
	}
	_, err = c.WriteTo(w)
	return err
}

// widen gives an axis whose data span nothing, or less than float64 can
// resolve at its magnitude, a span of ±max(1, 1e-6·|value|) around it.
// gonum/plot widens an empty span by ±1 itself, which at |value| ≥ 2⁵³
// (a diverged run's NLL of 1e30, say) leaves it empty and panics.
func widen(a *plot.Axis) {
	if math.IsNaN(a.Min) || math.IsNaN(a.Max) || math.IsInf(a.Min, 0) || math.IsInf(a.Max, 0) {
		return // no finite data: gonum/plot's own defaults apply
	}
	lo, hi := math.Min(a.Min, a.Max), math.Max(a.Min, a.Max)
	if hi-lo > 1e-9*math.Max(math.Abs(lo), math.Abs(hi)) {
		return
	}
	c := lo/2 + hi/2
	d := math.Max(1, 1e-6*math.Abs(c))
	a.Min, a.Max = c-d, c+d
}

const (
	figWidth  = 18 * vg.Centimeter
	figHeight = 11 * vg.Centimeter
)

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	return p
}

// withAlpha returns c with opacity a (premultiplied, as color.RGBA wants).
func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	f := float64(a) / 255
	return color.RGBA{R: uint8(float64(r>>8) * f), G: uint8(float64(g>>8) * f), B: uint8(float64(b>>8) * f), A: a}
}

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

// Quantile returns the q-quantile of xs by linear interpolation between
// order statistics (NumPy's default); xs is sorted in place.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sort.Float64s(xs)
	h := q * float64(len(xs)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[lo] + (h-float64(lo))*(xs[lo+1]-xs[lo])
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

type curveMetric struct {
	column, label string
}

// Curves plots the learning curves: per group the mean over runs of the
// NLL per epoch with the band between the 25% and 75% quantiles. Test
// accuracy gets a panel of its own when measured; without either, the
// reconstruction error is shown.
func Curves(groups []Group) (*Figure, error) {
	has := func(col string) bool {
		for i := range groups {
			if e, _ := series(&groups[i], func(m experiment.Metrics) float64 { return m.Value(col) }); len(e) > 0 {
				return true
			}
		}
		return false
	}
	var metrics []curveMetric
	if has("nll") {
		metrics = append(metrics, curveMetric{"nll", "NLL (nats)"})
	}
	if has("test_acc") {
		metrics = append(metrics, curveMetric{"test_acc", "test accuracy"})
	}
	if len(metrics) == 0 {
		metrics = append(metrics, curveMetric{"recon_error", "reconstruction error"})
	}
	fig := &Figure{Name: "curves", Width: figWidth, Height: figHeight}
	for k, cm := range metrics {
		title := "Learning curves: mean over runs, band 25–75%"
		if k > 0 {
			title = ""
		}
		p := newPlot(title, "epoch", cm.label)
		if cm.column == "test_acc" {
			p.Legend.Top = false
		}
		for gi := range groups {
			col := plotutil.Color(gi)
			epochs, vals := series(&groups[gi], func(m experiment.Metrics) float64 { return m.Value(cm.column) })
			if len(epochs) == 0 {
				continue
			}
			line := make(plotter.XYs, len(epochs))
			band := make(plotter.XYs, 0, 2*len(epochs))
			for i, e := range epochs {
				line[i] = plotter.XY{X: float64(e), Y: mean(vals[i])}
				band = append(band, plotter.XY{X: float64(e), Y: Quantile(vals[i], 0.25)})
			}
			for i := len(epochs) - 1; i >= 0; i-- {
				band = append(band, plotter.XY{X: float64(epochs[i]), Y: Quantile(vals[i], 0.75)})
			}
			if len(epochs) > 1 {
				poly, err := plotter.NewPolygon(band)
				if err != nil {
					return nil, err
				}
				poly.Color = withAlpha(col, 0x40)
				poly.LineStyle.Width = 0
				p.Add(poly)
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
				p.Legend.Add(groups[gi].Name, l, s)
			} else {
				p.Legend.Add(groups[gi].Name, l)
			}
		}
		fig.Panels = append(fig.Panels, p)
	}
	return fig, nil
}

// Degrees plots the hidden-unit degree (active data connections of a
// hidden unit) per epoch: per group the mean over runs of the minimum
// (dashed), mean (solid) and maximum (dashed).
func Degrees(groups []Group) (*Figure, error) {
	p := newPlot("Hidden degree: mean (solid), min and max (dashed), averaged over runs", "epoch", "active connections per hidden unit")
	top := 0.0
	for gi := range groups {
		col := plotutil.Color(gi)
		var first *plotter.Line
		for k, get := range []func(experiment.Metrics) float64{
			func(m experiment.Metrics) float64 { return m.DegreeMean },
			func(m experiment.Metrics) float64 { return notNaN(m.DegreeMean, float64(m.DegreeMin)) },
			func(m experiment.Metrics) float64 { return notNaN(m.DegreeMean, float64(m.DegreeMax)) },
		} {
			epochs, vals := series(&groups[gi], get)
			if len(epochs) == 0 {
				continue
			}
			xy := make(plotter.XYs, len(epochs))
			for i, e := range epochs {
				xy[i] = plotter.XY{X: float64(e), Y: mean(vals[i])}
				top = math.Max(top, xy[i].Y)
			}
			l, err := plotter.NewLine(xy)
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
		if first != nil {
			p.Legend.Add(groups[gi].Name, first)
		}
	}
	// Room above the curves for the legend.
	p.Y.Min, p.Y.Max = 0, math.Max(1, top)*(1.1+0.07*float64(len(groups)))
	return &Figure{Name: "degrees", Panels: []*plot.Plot{p}, Width: figWidth, Height: figHeight}, nil
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

// checkFormat reports whether a figure format is one Figure.WriteTo knows.
func checkFormat(format string) error {
	if _, err := draw.NewFormattedCanvas(vg.Centimeter, vg.Centimeter, format); err != nil {
		return fmt.Errorf("figure format %q: %w", format, err)
	}
	return nil
}
