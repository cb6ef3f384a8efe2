package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	_ "gonum.org/v1/plot/vg/vgimg" // png
	_ "gonum.org/v1/plot/vg/vgsvg" // svg
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
	p.X.Tick.Marker, p.Y.Tick.Marker = distinctTicks{}, distinctTicks{}
	p.Legend.Padding = vg.Points(2) // between entries, whose glyphs may be large
	p.Add(plotter.NewGrid())
	return p
}

// withAlpha returns c with opacity a (premultiplied, as color.RGBA wants).
func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	f := float64(a) / 255
	return color.RGBA{R: uint8(float64(r>>8) * f), G: uint8(float64(g>>8) * f), B: uint8(float64(b>>8) * f), A: a}
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

// dataSets splits groups (sorted by data label, as GroupRuns returns them)
// into runs of equal DataLabel: indices into groups.
func dataSets(groups []Group) [][]int {
	var sets [][]int
	for i := range groups {
		if i == 0 || groups[i].DataLabel != groups[i-1].DataLabel {
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

// checkFormat reports whether a figure format is one Figure.WriteTo knows.
func checkFormat(format string) error {
	if _, err := draw.NewFormattedCanvas(vg.Centimeter, vg.Centimeter, format); err != nil {
		return fmt.Errorf("figure format %q: %w", format, err)
	}
	return nil
}
