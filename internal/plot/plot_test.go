package plot

import (
	"bytes"
	"encoding/xml"
	"math"
	"strings"
	"testing"
)

func TestWriteSVGIsWellFormedXML(t *testing.T) {
	var xs, ys []float64
	for i := 0; i <= 100; i++ {
		x := -5 + 0.1*float64(i)
		xs = append(xs, x)
		ys = append(ys, 0.5*math.Exp(-math.Abs(x)))
	}
	f := &Figure{Title: "Laplace <b=1>", XLabel: "x", YLabel: "density",
		Series: []Series{{Name: "laplace", X: xs, Y: ys}, {Name: "gap", X: []float64{0, math.NaN(), 1}, Y: []float64{0, 1, 0.2}, Dashed: true}}}
	var buf bytes.Buffer
	if err := f.WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	paths := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatalf("invalid XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "path" {
			paths++
		}
	}
	if paths != 2 {
		t.Errorf("got %d paths, want 2", paths)
	}
	if !strings.Contains(buf.String(), "Laplace &lt;b=1&gt;") {
		t.Error("title not escaped")
	}
	// The NaN point must break the second line into two sub-paths.
	if c := strings.Count(buf.String(), "M"); c < 3 {
		t.Errorf("expected the NaN to start a new sub-path, found %d moves", c)
	}
}

func TestWriteSVGErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := (&Figure{Series: []Series{{X: []float64{1}, Y: nil}}}).WriteSVG(&buf); err == nil {
		t.Error("mismatched series: want error")
	}
	if err := (&Figure{Series: []Series{{X: []float64{math.NaN()}, Y: []float64{1}}}}).WriteSVG(&buf); err == nil {
		t.Error("no finite points: want error")
	}
}

func TestTicksCoverRange(t *testing.T) {
	for _, c := range []struct{ lo, hi float64 }{{0, 1}, {-3.7, 12.2}, {1e-4, 3e-4}, {-1e6, 2.5e6}} {
		tk := ticks(c.lo, c.hi, 5)
		if tk[0] > c.lo || tk[len(tk)-1] < c.hi {
			t.Errorf("ticks(%g,%g) = %v do not cover the range", c.lo, c.hi, tk)
		}
		if len(tk) < 3 || len(tk) > 13 {
			t.Errorf("ticks(%g,%g) has %d ticks", c.lo, c.hi, len(tk))
		}
	}
}
