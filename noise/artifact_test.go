package noise

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// TestPiecewiseRoundTrip: optimize → write → reload → certify → release. The
// reloaded density is bit-identical (same weights, edges, grid), certified
// again by the exact certifier, and releases on the exact sampler; a file
// whose ε is lowered, or whose weights are edited, is refused.
func TestPiecewiseRoundTrip(t *testing.T) {
	p := Params{Epsilon: 1, Delta: 0.2, Sensitivity: 1}
	r, err := Optimize(context.Background(), p, OptimalOptions{Intervals: 40, Symmetric: true, SkipLowerBound: true})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.Mechanism.WritePiecewise(&buf); err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"edges", "probabilities", "weights", "unit", "index", "epsilon", "delta", "sensitivity"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("file lacks %q", k)
		}
	}
	m, cert, err := LoadPiecewise(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	d0, d1 := r.Mechanism.Dist.(*PiecewiseConstant), m.Dist.(*PiecewiseConstant)
	if d0.unit != d1.unit || len(d0.w) != len(d1.w) {
		t.Fatalf("grid changed: unit %v → %v", d0.unit, d1.unit)
	}
	for j := range d0.w {
		if d0.w[j] != d1.w[j] || d0.edges[j] != d1.edges[j] || d0.index[j] != d1.index[j] {
			t.Fatalf("cell %d changed on reload", j)
		}
	}
	if !cert.Certified || cert.MaxShortfall != r.Certificate.MaxShortfall || m.Params != p {
		t.Fatalf("reload certificate %+v, original %+v", cert, r.Certificate)
	}
	src := NewSeededSource(1)
	g := d1.DefaultGranularity()
	for i := 0; i < 100; i++ {
		x, err := m.Release(10, src, ReleaseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := d1.Support()
		if x < 10+lo-g || x > 10+hi || x/g != float64(int64(x/g)) {
			t.Fatalf("release %v outside [%v, %v] or off the grid %v", x, 10+lo, 10+hi, g)
		}
	}
	// A file that claims more privacy than its density gives is refused.
	var f PiecewiseFile
	_ = json.Unmarshal(buf.Bytes(), &f)
	f.Epsilon = 0.5
	b, _ := json.Marshal(f)
	if _, _, err := LoadPiecewise(bytes.NewReader(b)); !errors.Is(err, ErrNotCertified) {
		t.Fatalf("ε lowered in the file: %v", err)
	}
	// Edited weights (mass moved to the centre) break the certificate.
	_ = json.Unmarshal(buf.Bytes(), &f)
	mid := len(f.Weights) / 2
	f.Weights[mid] *= 4
	s := 0.0
	for _, w := range f.Weights {
		s += w
	}
	for j, w := range f.Weights {
		f.Probabilities[j] = w / s
	}
	b, _ = json.Marshal(f)
	if _, _, err := LoadPiecewise(bytes.NewReader(b)); !errors.Is(err, ErrNotCertified) {
		t.Fatalf("edited weights: %v", err)
	}
	// Probabilities inconsistent with the weights: a field error.
	_ = json.Unmarshal(buf.Bytes(), &f)
	f.Probabilities[0] += 0.01
	b, _ = json.Marshal(f)
	if _, _, err := LoadPiecewise(bytes.NewReader(b)); !errors.Is(err, ErrInvalidParam) {
		t.Fatalf("inconsistent probabilities: %v", err)
	}
}
