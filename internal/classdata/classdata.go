// Package classdata loads the shared classification datasets (breast
// cancer, wine, iris, digits; see the NOTICE beside them) for tests,
// benchmarks and examples: the features, the labels, the binary
// "majority class versus the rest" labels of Liu and Selvi (§2.5) and
// Selvi et al. (§5.3), per-feature ranges and random 80/20 splits.
package classdata

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/learn"
)

// Set describes one dataset file.
type Set struct {
	Name, File, Target string
	// Lo and Hi, when set, are the published feature range of every
	// feature (digits: pixel counts in 0..16); otherwise Ranges takes the
	// range of each column over the whole file.
	Lo, Hi float64
}

// Sets are the four shared datasets.
var Sets = []Set{
	{Name: "breast-cancer", File: "breast_cancer.csv", Target: "benign"},
	{Name: "wine", File: "wine.csv", Target: "class"},
	{Name: "iris", File: "iris.csv", Target: "class"},
	{Name: "digits", File: "digits.csv", Target: "digit", Lo: 0, Hi: 16},
}

// ByName returns the set called name.
func ByName(name string) (Set, error) {
	for _, s := range Sets {
		if s.Name == name {
			return s, nil
		}
	}
	return Set{}, fmt.Errorf("classdata: unknown dataset %q", name)
}

// MeanSE returns the mean of v and its standard error sd/√len(v).
func MeanSE(v []float64) (mean, se float64) {
	m, sd := stat.MeanStdDev(v, nil)
	if len(v) < 2 {
		return m, 0
	}
	return m, sd / math.Sqrt(float64(len(v)))
}

// Load reads a set from the shared data folder (dir: shareddata.Dir()).
func Load(dir string, s Set) (learn.Data, []string, error) {
	f, err := os.Open(filepath.Join(dir, "classification", s.File))
	if err != nil {
		return learn.Data{}, nil, err
	}
	defer f.Close()
	return learn.ReadCSV(f, s.Target)
}

// Dir returns the shared data folder.
func Dir() (string, error) { return shareddata.Dir() }

// Majority returns labels +1 for the most frequent class (the smallest
// label among ties) and −1 for all others.
func Majority(y []float64) []float64 {
	count := map[float64]int{}
	for _, v := range y {
		count[v]++
	}
	keys := make([]float64, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Float64s(keys)
	best := keys[0]
	for _, k := range keys {
		if count[k] > count[best] {
			best = k
		}
	}
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = -1
		if v == best {
			out[i] = 1
		}
	}
	return out
}

// Ranges returns each feature's [lo, hi]: s.Lo, s.Hi when published,
// otherwise the column's range over the whole file (treated as public in
// the benchmarks, as in the papers' preprocessing).
func Ranges(x *mat.Dense, s Set) (lo, hi []float64) {
	n, d := x.Dims()
	lo, hi = make([]float64, d), make([]float64, d)
	for j := 0; j < d; j++ {
		if s.Hi > s.Lo {
			lo[j], hi[j] = s.Lo, s.Hi
			continue
		}
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
		for i := 0; i < n; i++ {
			lo[j] = math.Min(lo[j], x.At(i, j))
			hi[j] = math.Max(hi[j], x.At(i, j))
		}
		if !(hi[j] > lo[j]) {
			hi[j] = lo[j] + 1
		}
	}
	return lo, hi
}

// ScaleUnit maps every feature to [−1, 1] by its range: ‖xᵢ‖∞ ≤ 1.
func ScaleUnit(x *mat.Dense, lo, hi []float64) *mat.Dense {
	_, d := x.Dims()
	c, h := make([]float64, d), make([]float64, d)
	for j := range c {
		c[j], h[j] = (lo[j]+hi[j])/2, (hi[j]-lo[j])/2
	}
	return learn.Affine{Center: c, Scale: h}.Apply(x)
}

// Split returns a random split of n rows into a training part of
// ⌊frac·n⌉ rows and the rest, from rng.
func Split(rng *rand.Rand, n int, frac float64) (train, test []int) {
	p := rng.Perm(n)
	k := int(math.Round(frac * float64(n)))
	return p[:k], p[k:]
}

// Rows returns the data restricted to the given rows.
func Rows(d learn.Data, idx []int) learn.Data {
	_, p := d.X.Dims()
	x := mat.NewDense(len(idx), p, nil)
	y := make([]float64, len(idx))
	for r, i := range idx {
		x.SetRow(r, d.X.RawRowView(i))
		y[r] = d.Y[i]
	}
	return learn.Data{X: x, Y: y}
}

// Error returns the misclassification rate of sign(wᵀx̃) (x̃ = (x, 1) when
// w has one more entry than x; sign(0) = +1) on ±1 labels.
func Error(w []float64, d learn.Data) (float64, error) {
	n, p := d.X.Dims()
	if len(w) != p && len(w) != p+1 {
		return 0, fmt.Errorf("classdata: %d weights for %d features", len(w), p)
	}
	wrong := 0
	for i := 0; i < n; i++ {
		t := 0.0
		for j := 0; j < p; j++ {
			t += w[j] * d.X.At(i, j)
		}
		if len(w) == p+1 {
			t += w[p]
		}
		pred := 1.0
		if t < 0 {
			pred = -1
		}
		if pred != d.Y[i] {
			wrong++
		}
	}
	return float64(wrong) / float64(n), nil
}
