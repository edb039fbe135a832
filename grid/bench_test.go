package grid

import (
	"context"
	"testing"

	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/noise"
)

// BenchmarkPrivateRelease times the private cost release (nominal OPF and the
// chance-constrained program, B-θ) over network sizes.
func BenchmarkPrivateRelease(b *testing.B) {
	for _, name := range []string{"pglib_opf_case5_pjm", "pglib_opf_case118_ieee", "pglib_opf_case1354_pegase", "pglib_opf_case2383wp_k"} {
		c, err := ReadCase(shareddata.Path(b, "pglib/"+name+".m"))
		if err != nil {
			b.Fatal(err)
		}
		n, err := NewNetwork(c, PowerModelsDC())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := n.PrivateRelease(context.Background(), PrivateOptions{Alpha: 1, Epsilon: 1, Source: noise.NewSeededSource(uint64(i + 1))}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEvaluateProgram times 10⁴ simulated program-perturbation releases
// (no solves) on 2383wp_k.
func BenchmarkEvaluateProgram(b *testing.B) {
	c, err := ReadCase(shareddata.Path(b, "pglib/pglib_opf_case2383wp_k.m"))
	if err != nil {
		b.Fatal(err)
	}
	n, err := NewNetwork(c, PowerModelsDC())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	pr, err := n.PrivateRelease(ctx, PrivateOptions{Alpha: 1, Epsilon: 1, Source: noise.NewSeededSource(1)})
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := pr.QueryRange(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := pr.Evaluate(ctx, EvaluateOptions{N: 10000, ProgramOnly: true, Source: noise.NewSeededSource(2)}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse times ReadCase over sizes.
func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"pglib_opf_case118_ieee", "pglib_opf_case2383wp_k"} {
		path := shareddata.Path(b, "pglib/"+name+".m")
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := ReadCase(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
