package plot_test

import (
	"fmt"
	"strings"

	"github.com/privopt/privopt/internal/plot"
)

func ExampleFigure_WriteSVG() {
	f := &plot.Figure{Title: "y = x²", Series: []plot.Series{{Name: "square", X: []float64{0, 1, 2}, Y: []float64{0, 1, 4}}}}
	var sb strings.Builder
	if err := f.WriteSVG(&sb); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.HasPrefix(sb.String(), "<svg"), strings.Count(sb.String(), "<path"))
	// Output: true 1
}
