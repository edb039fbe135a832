package grid

import (
	"testing"

	"github.com/privopt/privopt/internal/shareddata"
)

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
