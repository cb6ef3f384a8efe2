package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

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
// gonum/plot knows) to w. Each panel's legend is drawn in a column to the
// right of the panels, where it cannot cover data.
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
	legends := make([]plot.Legend, n)
	var legendW vg.Length
	for i, p := range f.Panels {
		legends[i] = p.Legend
		legends[i].Top, legends[i].Left = true, true
		r := legends[i].Rectangle(draw.Canvas{})
		legendW = max(legendW, r.Max.X-r.Min.X)
		p.Legend = plot.NewLegend()
	}
	defer func() {
		for i, p := range f.Panels {
			p.Legend = legends[i]
		}
	}()
	gap := vg.Millimeter * 3
	if legendW > 0 {
		legendW += 2 * gap
	}
	c, err := draw.NewFormattedCanvas(f.Width+legendW, f.Height*vg.Length(n), format)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	area := draw.Crop(dc, 0, -legendW, 0, 0)
	cs := []draw.Canvas{area}
	if n > 1 {
		rows := make([][]*plot.Plot, n)
		for i, p := range f.Panels {
			rows[i] = []*plot.Plot{p}
		}
		tiles := draw.Tiles{Rows: n, Cols: 1, PadY: vg.Millimeter * 4, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2,
			PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
		cs = cs[:0]
		for _, row := range plot.Align(rows, tiles, area) {
			cs = append(cs, row[0])
		}
	}
	for i, p := range f.Panels {
		p.Draw(cs[i])
		// The legend starts level with the top of the panel's data area.
		top := cs[i].Max.Y
		if p.Title.Text != "" {
			r := p.Title.TextStyle.Rectangle(p.Title.Text)
			top -= r.Max.Y - r.Min.Y + p.Title.Padding
		}
		lc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: area.Max.X + gap, Y: cs[i].Min.Y},
			Max: vg.Point{X: dc.Max.X - gap, Y: top},
		}}
		legends[i].Draw(lc)
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

// dataSets splits groups (sorted by data set, as GroupRuns returns them)
// into runs of equal Data: indices into groups.
func dataSets(groups []Group) [][]int {
	var sets [][]int
	for i := range groups {
		if i == 0 || groups[i].Data != groups[i-1].Data {
			sets = append(sets, nil)
		}
		sets[len(sets)-1] = append(sets[len(sets)-1], i)
	}
	return sets
}

// panelTitle is the title of the first panel of a data set: the figure's
// caption above the first, the data set's name when there are several.
func panelTitle(caption string, first bool, data string, several bool) string {
	var lines []string
	if first {
		lines = append(lines, caption)
	}
	if several {
		lines = append(lines, data)
	}
	return strings.Join(lines, "\n")
}

// qbars are error bars: Low and High are distances below and above Y.
type qbars struct {
	plotter.XYs
	plotter.YErrors
}

// Curves plots the learning curves, one panel per data set and metric: per
// group the mean over runs of the metric per epoch, with the band between
// the 25% and 75% quantiles over runs (bars at a single epoch) where a
// group has several runs. The NLL and the test accuracy get a panel each
// when measured; without either, the reconstruction error is shown.
// Accuracy axes stay within [0, 1].
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
				if len(epochs) == 1 && len(set) > 1 {
					// Side by side, so that the bars of a one-epoch panel
					// do not hide each other.
					line[0].X += 0.6 * (float64(j)/float64(max(1, len(set)-1)) - 0.5)
				}
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
					p.Add(eb)
					bars = true
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
			if single {
				p.X.Min, p.X.Max = p.X.Min-0.5, p.X.Max+0.5 // room for the outer bars
				var ticks []plot.Tick                       // whole epochs only
				for e := math.Ceil(p.X.Min); e <= p.X.Max; e++ {
					ticks = append(ticks, plot.Tick{Value: e, Label: strconv.Itoa(int(e))})
				}
				p.X.Tick.Marker = plot.ConstantTicks(ticks)
			}
			if cm.column == "test_acc" && lo <= hi {
				pad := math.Max(0.1*(hi-lo), 0.005)
				p.Y.Min, p.Y.Max = math.Max(0, lo-pad), math.Min(1, hi+pad)
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
		p.Title.Text = panelTitle(caption, i == 0, groups[sets[i][0]].Data, len(sets) > 1)
	}
	return fig, nil
}

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

// checkFormat reports whether a figure format is one Figure.WriteTo knows.
func checkFormat(format string) error {
	if _, err := draw.NewFormattedCanvas(vg.Centimeter, vg.Centimeter, format); err != nil {
		return fmt.Errorf("figure format %q: %w", format, err)
	}
	return nil
}
