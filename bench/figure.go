package bench

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// The SET scaling figure's size: 7 × 4.5 inches at ScalingFigureDPI.
const (
	ScalingFigureWidth  = 7 * vg.Inch
	ScalingFigureHeight = 4.5 * vg.Inch
	ScalingFigureDPI    = 96
)

// WriteScalingFigure draws the SET sizes' epoch times against their
// models' connections + units on log-log axes, each point labelled with
// its H, with the least-squares line of GrowthExponent (its exponent in
// the legend) and, dashed, a line of exponent 1 through the smallest size
// for reference, and writes it to w as a PNG of ScalingFigureWidth ×
// ScalingFigureHeight at ScalingFigureDPI. It needs two or more distinct
// sizes.
func WriteScalingFigure(w io.Writer, pts []ScalePoint) (err error) {
	b, a, ok := GrowthExponent(pts)
	if !ok {
		return errors.New("bench: the SET scaling figure needs two or more distinct sizes with positive times")
	}
	// gonum/plot reports what it cannot draw by panicking.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bench: drawing the SET scaling figure: %v", r)
		}
	}()
	p := plot.New()
	p.Title.Text = "MNIST SET epoch time against model size (ε = 11, CD-10)"
	p.X.Label.Text = "connections + units"
	p.Y.Label.Text = "s per 60,000-sample epoch"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = logTicks{}, logTicks{}
	p.Add(plotter.NewGrid())

	xy := make(plotter.XYs, len(pts))
	lab := plotter.XYLabels{XYs: xy, Labels: make([]string, len(pts))}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, q := range pts {
		xy[i] = plotter.XY{X: q.Size, Y: q.Seconds}
		lab.Labels[i] = fmt.Sprintf("H = %d", q.Hidden)
		lo, hi = math.Min(lo, q.Size), math.Max(hi, q.Size)
	}
	lo, hi = lo/1.15, hi*1.15
	fit, err := plotter.NewLine(plotter.XYs{{X: lo, Y: math.Exp(a) * math.Pow(lo, b)}, {X: hi, Y: math.Exp(a) * math.Pow(hi, b)}})
	if err != nil {
		return err
	}
	fit.Color, fit.Width = plotutil.Color(0), vg.Points(1.5)
	first := pts[0]
	for _, q := range pts {
		if q.Size < first.Size {
			first = q
		}
	}
	ref, err := plotter.NewLine(plotter.XYs{{X: lo, Y: first.Seconds * lo / first.Size}, {X: hi, Y: first.Seconds * hi / first.Size}})
	if err != nil {
		return err
	}
	ref.Color = color.Gray{Y: 0x90}
	ref.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	sc, err := plotter.NewScatter(xy)
	if err != nil {
		return err
	}
	sc.Color, sc.Shape, sc.Radius = color.Black, draw.CircleGlyph{}, vg.Points(3)
	labels, err := plotter.NewLabels(lab)
	if err != nil {
		return err
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].YAlign = draw.YCenter
	}
	labels.Offset = vg.Point{X: vg.Points(6)}
	p.Add(ref, fit, sc, labels)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.Add("measured (median)", sc)
	p.Legend.Add(fmt.Sprintf("least squares: time ~ (connections + units)^%.2f", b), fit)
	p.Legend.Add("exponent 1, through the smallest", ref)
	// Room for the labels right of the last point and the legend above the first.
	p.X.Max *= 1.6
	p.Y.Max *= 2.5

	c := vgimg.NewWith(vgimg.UseWH(ScalingFigureWidth, ScalingFigureHeight), vgimg.UseDPI(ScalingFigureDPI))
	p.Draw(draw.New(c))
	_, err = vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// logTicks labels 1, 2 and 5 times the powers of ten on a log axis, with
// unlabelled ticks at the other multiples; on an axis with fewer than
// three of those, every multiple is labelled.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	labelled := 0
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		base := math.Pow(10, e)
		for m := 1; m < 10; m++ {
			v := float64(m) * base
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'f', -1, 64)
				labelled++
			}
			ts = append(ts, t)
		}
	}
	if labelled < 3 {
		for i := range ts {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', -1, 64)
		}
	}
	return ts
}
