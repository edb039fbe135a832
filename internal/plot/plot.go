// Package plot writes simple line charts as standalone SVG documents: a few
// series over a shared x axis, with axes, ticks, a title and a legend. It has
// no dependencies beyond the standard library and is meant for the CLI's
// --plot outputs (noise densities, released-cost densities).
package plot

import (
	"bufio"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"strconv"
)

// Series is one line of a chart.
type Series struct {
	Name   string    // legend label; empty hides the series from the legend
	X, Y   []float64 // equal lengths; non-finite points break the line
	Dashed bool      // draw with a dashed stroke
}

// Figure is a line chart. The zero Width and Height mean 720×420 pixels.
type Figure struct {
	Title, XLabel, YLabel string
	Series                []Series
	Width, Height         int
}

// palette: colour-blind-safe (Okabe–Ito) colours, cycled over series.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"}

// WriteSVG renders the figure. It returns an error if a series has mismatched
// lengths or there are no finite points to draw.
func (f *Figure) WriteSVG(w io.Writer) error {
	width, height := f.Width, f.Height
	if width <= 0 {
		width = 720
	}
	if height <= 0 {
		height = 420
	}
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for i, s := range f.Series {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("plot: series %d (%q) has %d x values and %d y values", i, s.Name, len(s.X), len(s.Y))
		}
		for k := range s.X {
			x, y := s.X[k], s.Y[k]
			if !finite(x) || !finite(y) {
				continue
			}
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
			ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
		}
	}
	if xmin > xmax {
		return errors.New("plot: no finite points to draw")
	}
	if ymin > 0 {
		ymin = 0 // densities and costs read best from a zero baseline
	}
	if xmax == xmin {
		xmin, xmax = xmin-1, xmax+1
	}
	if ymax == ymin {
		ymax = ymin + 1
	}
	xt := ticks(xmin, xmax, 6)
	yt := ticks(ymin, ymax, 5)
	xmin, xmax = math.Min(xmin, xt[0]), math.Max(xmax, xt[len(xt)-1])
	ymin, ymax = math.Min(ymin, yt[0]), math.Max(ymax, yt[len(yt)-1])

	const left, right, top, bottom = 70.0, 20.0, 40.0, 50.0
	pw, ph := float64(width)-left-right, float64(height)-top-bottom
	px := func(x float64) float64 { return left + (x-xmin)/(xmax-xmin)*pw }
	py := func(y float64) float64 { return top + ph - (y-ymin)/(ymax-ymin)*ph }

	b := bufio.NewWriter(w)
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	if f.Title != "" {
		fmt.Fprintf(b, `<text x="%g" y="22" text-anchor="middle" font-size="15">%s</text>`+"\n", left+pw/2, html.EscapeString(f.Title))
	}
	// Grid and ticks.
	for _, t := range xt {
		x := px(t)
		fmt.Fprintf(b, `<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="#e5e5e5"/>`+"\n", x, top, x, top+ph)
		fmt.Fprintf(b, `<text x="%.2f" y="%.2f" text-anchor="middle">%s</text>`+"\n", x, top+ph+16, label(t))
	}
	for _, t := range yt {
		y := py(t)
		fmt.Fprintf(b, `<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="#e5e5e5"/>`+"\n", left, y, left+pw, y)
		fmt.Fprintf(b, `<text x="%.2f" y="%.2f" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", left-6, y, label(t))
	}
	fmt.Fprintf(b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#333"/>`+"\n", left, top, pw, ph)
	if f.XLabel != "" {
		fmt.Fprintf(b, `<text x="%g" y="%g" text-anchor="middle">%s</text>`+"\n", left+pw/2, float64(height)-10, html.EscapeString(f.XLabel))
	}
	if f.YLabel != "" {
		fmt.Fprintf(b, `<text transform="translate(16,%g) rotate(-90)" text-anchor="middle">%s</text>`+"\n", top+ph/2, html.EscapeString(f.YLabel))
	}
	// Series.
	legendY := top + 16
	for i, s := range f.Series {
		colour := palette[i%len(palette)]
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="6,4"`
		}
		var path []byte
		pen := false
		for k := range s.X {
			x, y := s.X[k], s.Y[k]
			if !finite(x) || !finite(y) {
				pen = false
				continue
			}
			cmd := byte('L')
			if !pen {
				cmd = 'M'
				pen = true
			}
			path = append(path, cmd)
			path = strconv.AppendFloat(path, px(x), 'f', 2, 64)
			path = append(path, ',')
			path = strconv.AppendFloat(path, py(y), 'f', 2, 64)
		}
		if len(path) > 0 {
			fmt.Fprintf(b, `<path d="%s" fill="none" stroke="%s" stroke-width="1.8"%s/>`+"\n", path, colour, dash)
		}
		if s.Name != "" {
			lx := left + pw - 190
			fmt.Fprintf(b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="2"%s/>`+"\n", lx, legendY, lx+24, legendY, colour, dash)
			fmt.Fprintf(b, `<text x="%g" y="%g" dominant-baseline="middle">%s</text>`+"\n", lx+30, legendY, html.EscapeString(s.Name))
			legendY += 18
		}
	}
	fmt.Fprintln(b, "</svg>")
	return b.Flush()
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// ticks returns about n "nice" tick values (steps of 1, 2 or 5 times a power of
// ten) covering [lo, hi].
func ticks(lo, hi float64, n int) []float64 {
	span := hi - lo
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	start := math.Floor(lo/step) * step
	var t []float64
	for v := start; v <= hi+step*1e-9; v += step {
		t = append(t, math.Round(v/step)*step)
	}
	if t[len(t)-1] < hi {
		t = append(t, t[len(t)-1]+step)
	}
	return t
}

func label(v float64) string {
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	if a >= 1e5 || a < 1e-3 {
		return strconv.FormatFloat(v, 'e', 1, 64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// WriteSVGFile renders the figure into the file at path, creating or
// truncating it. A write error leaves no half-reported success: the first error
// of rendering or closing is returned.
func (f *Figure) WriteSVGFile(path string) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := f.WriteSVG(fh); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}
