package main

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"strings"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/experiment"
	"github.com/ncg-rbm/ncg/kernel"
)

func init() {
	commands["sample"] = command{"image grids of Gibbs samples (and -masks: learned masks and weights) of a trained model", runSample}
}

const sampleSynopsis = `ncgbench sample -model PATH [flags]: image grids of Gibbs samples

Each tile shows a chain's visible units after the last step: for binary
units their probabilities (white 1, black 0); for Gaussian units their
means d + C^T h (not the noisy samples), mapped back to the data's input
scale through the run's scaling (-real), drawn black at the training
data's smallest value and white at its largest, means beyond clipped.`

func runSample(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sample", stderr)
	modelPath := fs.String("model", "", "run `directory` (its model.npz and config.json) or a model.npz file")
	dataName := fs.String("data", "", "data set of the start images (default: the run's)")
	realMode := fs.String("real", "", "Gaussian models: `MODE` unit or standardise, the scaling of -data's values (default: the run's)")
	dataDir := dataDirFlag(fs)
	n := fs.Int("n", 64, "chains (tiles)")
	steps := fs.Int("steps", 1000, "Gibbs steps of each chain")
	seed := fs.Uint64("seed", 1, "seed of the chains")
	out := fs.String("out", "samples.png", "PNG `file` of the samples")
	masks := fs.String("masks", "", "also write the masks A and weights C of the first -n hidden units to this PNG `file`")
	scale := fs.Int("scale", 0, "pixels per unit (0: automatic)")
	if err := parseFlagsHelp(fs, args, stderr, sampleSynopsis); err != nil {
		return err
	}
	if *modelPath == "" {
		return usagef("-model is required (a run directory or a model.npz file)")
	}
	if *n < 1 || *steps < 0 || *scale < 0 {
		return usagef("need -n ≥ 1, -steps ≥ 0 and -scale ≥ 0")
	}
	if err := checkOutFile("out", *out); err != nil {
		return err
	}
	if *masks != "" {
		if err := checkOutFile("masks", *masks); err != nil {
			return err
		}
	}
	if err := kernel.Init(); err != nil {
		return usageError{err}
	}
	at, err := experiment.LocateModel(*modelPath)
	if err != nil {
		return err
	}
	npzPath := at.Path
	if at.Dir {
		npzPath = at.Run.ModelPath()
	}
	// A deep model's chains are fresh chains of the saved model, its
	// bottom RBM the visible layer's (the tiles, -masks).
	var stack *engine.Stack
	var m *engine.Model
	hidden := 0
	if at.Stack {
		if stack, _, err = at.LoadStack(nil, 0); err != nil {
			return err
		}
		m = stack.RBMs[0]
		if at.Dir {
			npzPath = at.Run.StackPath()
		}
		for _, l := range stack.RBMs {
			hidden += l.H
		}
	} else if m, err = at.Load(nil, 0); err != nil {
		return err
	} else {
		hidden = m.H
	}
	if m.Visible.Continuous() && m.X != m.DataUnits {
		return fmt.Errorf("%s has %s visible units and %d label units: label units need binary or categorical units", npzPath, m.Visible.Name(), m.X-m.DataUnits)
	}
	spec, _, err := at.Spec()
	if err != nil {
		return err
	}
	if *dataName != "" {
		spec.Data, spec.TestData, spec.Format = *dataName, "", ""
	}
	if *realMode != "" {
		if !m.Visible.Continuous() {
			return usagef("-real: %s has %s visible units, whose chains start from binary data", npzPath, m.Visible.Name())
		}
		if spec.Real, err = (experiment.Spec{Real: data.RealMode(*realMode)}).RealMode(); err != nil {
			return usageError{err}
		}
	}
	if spec.Data == "" {
		return usagef("%s has no config.json beside it: give -data", npzPath)
	}
	train, test, err := experiment.Load(spec, *dataDir)
	if err != nil {
		return err
	}
	set, from := test, "test"
	if set == nil {
		set, from = train, "training"
	}
	if err := m.Visible.Accepts(set); err != nil { // the chains start from the set's rows
		hint := ""
		if m.Visible.Continuous() {
			hint = " (MNIST and IDX images take -real unit or standardise, as the model was trained)"
		}
		return usagef("-data %s: %s: %v%s", spec.Data, npzPath, err, hint)
	}
	if set.D != m.DataUnits {
		return fmt.Errorf("%s has %d data units, the model %d", spec.Data, set.D, m.DataUnits)
	}
	lay := newLayout(m.DataUnits, *scale)
	if err := sampleFits(m, hidden, *n, lay, *scale, *masks != ""); err != nil {
		return err
	}
	start := make([]float32, *n*m.X)
	for c := 0; c < *n; c++ {
		v := start[c*m.X : (c+1)*m.X]
		if set.IsReal() {
			copy(v, set.RealRow(c%set.N))
		} else {
			for j, u := range set.Row(c % set.N) {
				v[j] = float32(u)
			}
		}
		if l := set.Label(c % set.N); l >= 0 && m.DataUnits+l < m.X {
			v[m.DataUnits+l] = 1 // classification model: the label one-hot, then free
		}
	}
	ctx, cancel := interruptible()
	defer cancel()
	var probs []float32
	if stack != nil {
		probs, err = engine.GibbsStack(ctx, stack, start, *n, *steps, *seed)
	} else {
		probs, err = engine.Gibbs(ctx, m, start, *n, *steps, *seed)
	}
	if err != nil {
		return errInterrupted
	}
	shown := fmt.Sprintf("from %s images of %s, seed %d: visible probabilities after the last step (white 1, black 0)", from, spec.Data, *seed)
	grey := func(k int) uint8 { return uint8(math.Round(255 * float64(probs[k]))) }
	if m.Visible.Continuous() {
		lo, hi := inputRange(train)
		levels := meanLevels(probs, set.Scaling, lo, hi)
		grey = func(k int) uint8 { return levels[k] }
		what := "means d + C^T h of the visible units after the last step"
		if *steps == 0 {
			what = "the start images"
		}
		shown = fmt.Sprintf("from %s images of %s, seed %d: %s, in the input scale, black %.4g, white %.4g (the training data's range), clipped",
			from, spec.Data, *seed, what, lo, hi)
	}
	img := lay.grid(*n, func(c, j int) color.Color { return color.Gray{Y: grey(c*m.X + j)} })
	caption := fmt.Sprintf("%d chains of %d Gibbs steps %s", *n, *steps, shown)
	switch {
	case stack == nil:
	case stack.Kind == engine.DBM:
		caption = fmt.Sprintf("%d fresh chains of the DBM of layers %s, %d Gibbs sweeps of every layer, %s", *n, layersText(stack.Sizes()), *steps, shown)
	default:
		caption = fmt.Sprintf("%d fresh chains of the DBN of layers %s, %d Gibbs steps of its top RBM, then down through the layers below, %s", *n, layersText(stack.Sizes()), *steps, shown)
	}
	if err := writePNG(*out, withCaption(img, caption)); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %s\n", *out, caption)
	if *masks != "" {
		k := min(*n, m.H)
		img, big := maskImage(m, k, lay)
		caption := fmt.Sprintf("Hidden units 0..%d. Left: masks A (white connected, black not). Right: weights C (grey 0, white +%.3g, black -%.3g)",
			k-1, big, big)
		if err := writePNG(*masks, withCaption(img, caption)); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %s\n", *masks, caption)
	}
	return nil
}

// Captions are drawn below a grid in a 7×13-pixel ASCII font, wrapped to the
// grid's width or captionMinWidth, whichever is wider.
const captionMinWidth = 360

// withCaption returns img with text drawn in black on white below it,
// word-wrapped; the image is widened to captionMinWidth if narrower.
func withCaption(img *image.RGBA, text string) *image.RGBA {
	face := basicfont.Face7x13
	const margin = 4
	w := max(img.Bounds().Dx(), captionMinWidth)
	perLine := (w - 2*margin) / face.Advance
	var lines []string
	for _, word := range strings.Fields(text) {
		if n := len(lines); n > 0 && utf8.RuneCountInString(lines[n-1])+1+utf8.RuneCountInString(word) <= perLine {
			lines[n-1] += " " + word
		} else {
			lines = append(lines, word)
		}
	}
	gridH := img.Bounds().Dy()
	out := image.NewRGBA(image.Rect(0, 0, w, gridH+len(lines)*face.Height+2*margin))
	fill(out, color.White)
	draw.Draw(out, img.Bounds(), img, img.Bounds().Min, draw.Src)
	d := font.Drawer{Dst: out, Src: image.Black, Face: face}
	for i, l := range lines {
		d.Dot = fixed.P(margin, gridH+margin+i*face.Height+face.Ascent)
		d.DrawString(l)
	}
	return out
}

// maxImageSide is the most pixels a side of an image of sample may have:
// PNG allows 2^31−1, but few viewers open an image wider than this.
const maxImageSide = 1 << 16

// sampleFits refuses, before anything is allocated, samples whose chains
// (of the model m, whose hidden layers have hidden units in all) or images
// cannot fit in memory, or images wider or taller than
// maxImageSide, naming -n, or -scale when it is above the automatic one.
func sampleFits(m *engine.Model, hidden, n int, lay layout, scale int, masks bool) error {
	w, h := lay.sizeFloat(n)
	blame := func() (string, int) {
		if scale > newLayout(m.DataUnits, 0).scale { // a scale above the automatic one
			return "scale", scale
		}
		return "n", n
	}
	if w > maxImageSide || h > maxImageSide {
		name, v := blame()
		return usagef("-%s %d: the image would be %.0f × %.0f pixels; at most %d on a side", name, v, w, h, maxImageSide)
	}
	x, hid, chains := float64(m.X), float64(hidden), float64(n)
	vecs := 4.0 // start, states, probabilities or means, pre-activations
	if m.Visible.Continuous() {
		vecs++ // v/σ²
	}
	pixels := 2 * w * h * 4 // the grid and its captioned copy, RGBA
	if masks {
		pixels *= 2
	}
	name, v := blame()
	return experiment.CheckMemory("sampling", []experiment.MemoryPart{
		{Setting: "n", Value: n, Bytes: chains * (vecs*x*4 + 2*hid*4 + float64(unsafe.Sizeof(kernel.Stream{}))), What: "the chains (n × units)"},
		{Setting: name, Value: v, Bytes: pixels, What: "the images"},
	})
}

// layout places tiles of d units: side×side when d is a square, else one
// row of d units per tile, tiles stacked in one column.
type layout struct {
	w, h   int // units per tile
	scale  int // pixels per unit
	gap    int // pixels between tiles
	square bool
}

var gapColor = color.RGBA{R: 70, G: 100, B: 160, A: 255}

func newLayout(d, scale int) layout {
	side := int(math.Round(math.Sqrt(float64(d))))
	l := layout{w: d, h: 1, gap: 2, square: side*side == d}
	if l.square {
		l.w, l.h = side, side
	}
	if l.scale = scale; scale == 0 {
		l.scale = max(1, min(8, 32/l.w))
		if !l.square {
			l.scale = max(1, min(8, 600/d))
		}
	}
	return l
}

// dims returns the columns and rows of tiles of a grid of n.
func (l layout) dims(n int) (cols, rows int) {
	if !l.square {
		return 1, n
	}
	cols = int(math.Ceil(math.Sqrt(float64(n))))
	return cols, (n + cols - 1) / cols
}

// sizeFloat is size in float64, which no n or scale overflows.
func (l layout) sizeFloat(n int) (w, h float64) {
	cols, rows := 1.0, float64(n)
	if l.square {
		cols = math.Ceil(math.Sqrt(float64(n)))
		rows = math.Ceil(float64(n) / cols)
	}
	return cols*float64(l.w)*float64(l.scale) + (cols+1)*float64(l.gap), rows*float64(l.h)*float64(l.scale) + (rows+1)*float64(l.gap)
}

// size returns the pixel size of a grid of n tiles.
func (l layout) size(n int) (w, h int) {
	cols, rows := l.dims(n)
	return cols*l.w*l.scale + (cols+1)*l.gap, rows*l.h*l.scale + (rows+1)*l.gap
}

// draw paints a grid of n tiles into img at x0; unit j of tile c has
// colour at(c, j).
func (l layout) draw(img *image.RGBA, x0, n int, at func(c, j int) color.Color) {
	cols, _ := l.dims(n)
	for c := 0; c < n; c++ {
		tx := x0 + l.gap + (c%cols)*(l.w*l.scale+l.gap)
		ty := l.gap + (c/cols)*(l.h*l.scale+l.gap)
		for j := 0; j < l.w*l.h; j++ {
			col := at(c, j)
			px, py := tx+(j%l.w)*l.scale, ty+(j/l.w)*l.scale
			for dy := 0; dy < l.scale; dy++ {
				for dx := 0; dx < l.scale; dx++ {
					img.Set(px+dx, py+dy, col)
				}
			}
		}
	}
}

func (l layout) grid(n int, at func(c, j int) color.Color) *image.RGBA {
	w, h := l.size(n)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fill(img, gapColor)
	l.draw(img, 0, n, at)
	return img
}

func fill(img *image.RGBA, c color.Color) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			img.Set(x, y, c)
		}
	}
}

// maskImage shows the first k hidden units: left their masks A (white:
// connected), right their weights C on a diverging grey scale (mid grey 0,
// white the largest positive, black the largest negative |C| shown).
// It also returns the largest |C| shown (the full scale).
func maskImage(m *engine.Model, k int, l layout) (*image.RGBA, float64) {
	w, h := l.size(k)
	img := image.NewRGBA(image.Rect(0, 0, 2*w+3*l.gap, h))
	fill(img, gapColor)
	l.draw(img, 0, k, func(c, j int) color.Color {
		if m.A[j*m.H+c] != 0 {
			return color.Gray{Y: 255}
		}
		return color.Gray{Y: 0}
	})
	var big float64
	for j := 0; j < m.DataUnits; j++ {
		for i := 0; i < k; i++ {
			big = math.Max(big, math.Abs(float64(m.C()[j*m.H+i])))
		}
	}
	scale := big
	if scale == 0 {
		scale = 1
	}
	l.draw(img, w+3*l.gap, k, func(c, j int) color.Color {
		v := float64(m.C()[j*m.H+c]) / scale
		return color.Gray{Y: uint8(math.Round(127.5 + 127.5*v))}
	})
	return img, big
}

func writePNG(path string, img image.Image) error {
	return engine.WriteAtomic(path, func(w io.Writer) error { return png.Encode(w, img) })
}
