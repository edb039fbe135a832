package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/privopt/privopt/noise"
)

// loadNoiseFile reads a density written by --out and re-certifies it.
func loadNoiseFile(path string) (*noise.Mechanism, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, _, err := noise.LoadPiecewise(f)
	if err != nil {
		return nil, fmt.Errorf("--noise-file %s: %w", path, err)
	}
	return m, nil
}

// writeNoiseFile writes m's piecewise density (noise.Mechanism.WritePiecewise).
func writeNoiseFile(path string, m *noise.Mechanism) error {
	if _, ok := m.Dist.(*noise.PiecewiseConstant); !ok {
		return usagef("--out needs a piecewise-constant density (mechanism optimal), not %s", m.Name)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := m.WritePiecewise(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// sampleSafe reports whether m has a floating-point-safe release.
func sampleSafe(m *noise.Mechanism) bool {
	_, err := m.Release(0, noise.NewSeededSource(0), noise.ReleaseOptions{})
	return !errors.Is(err, noise.ErrUnsafeRelease)
}

// drawSamples draws n noise values as releases of the value 0 (safe path) or,
// for mechanisms without one, by Dist.Sample with a warning.
func drawSamples(ctx context.Context, m *noise.Mechanism, n int, stderr io.Writer) ([]float64, error) {
	out := make([]float64, 0, n)
	stopped := func(i int) error {
		if i&4095 == 0 && ctx.Err() != nil {
			return fmt.Errorf("sampling stopped after %d of %d samples: %w", i, n, ctx.Err())
		}
		return nil
	}
	if !sampleSafe(m) {
		fmt.Fprintf(stderr, "privopt noise: warning: %s has no floating-point-safe sampler; the samples are plain floats (Mironov 2012)\n", m.Name)
		for i := 0; i < n; i++ {
			if err := stopped(i); err != nil {
				return nil, err
			}
			out = append(out, m.Dist.Sample(nil))
		}
		return out, nil
	}
	for i := 0; i < n; i++ {
		if err := stopped(i); err != nil {
			return nil, err
		}
		x, err := m.Release(0, nil, noise.ReleaseOptions{})
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}
