package learn

import (
	"encoding/csv"
	"io"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// ReadCSV reads a CSV file with a header row: every column except target is
// a feature (in file order). It returns the data and the feature names.
func ReadCSV(r io.Reader, target string) (Data, []string, error) {
	rd := csv.NewReader(r)
	rd.TrimLeadingSpace = true
	rows, err := rd.ReadAll()
	if err != nil {
		return Data{}, nil, invalidf("csv: %v", err)
	}
	if len(rows) < 2 {
		return Data{}, nil, invalidf("csv has %d rows, need a header and at least one data row", len(rows))
	}
	ti := -1
	var names []string
	for j, h := range rows[0] {
		if h == target {
			ti = j
		} else {
			names = append(names, h)
		}
	}
	if ti < 0 {
		return Data{}, nil, invalidf("csv has no column %q (columns %v)", target, rows[0])
	}
	n, d := len(rows)-1, len(rows[0])-1
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i, row := range rows[1:] {
		c := 0
		for j, s := range row {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return Data{}, nil, invalidf("csv row %d column %q is not a number", i+2, rows[0][j])
			}
			if j == ti {
				y[i] = v
			} else {
				x.Set(i, c, v)
				c++
			}
		}
	}
	data := Data{X: x, Y: y}
	return data, names, data.Validate()
}

// ReadCSVShape reads only the public shape of a CSV file in ReadCSV's
// format: the feature names (every column except target, in file order) and
// the number of data rows n (public under replace-one adjacency). No value
// is parsed, so a release plan can be computed before any private value is
// read.
func ReadCSVShape(r io.Reader, target string) ([]string, int, error) {
	rd := csv.NewReader(r)
	rd.TrimLeadingSpace = true
	rd.ReuseRecord = true
	head, err := rd.Read()
	if err != nil {
		return nil, 0, invalidf("csv header: %v", err)
	}
	var names []string
	found := false
	for _, h := range head {
		if h == target {
			found = true
		} else {
			names = append(names, h)
		}
	}
	if !found {
		return nil, 0, invalidf("csv has no column %q (columns %v)", target, head)
	}
	n := 0
	for {
		_, err := rd.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, invalidf("csv: line %d is malformed", n+2)
		}
		n++
	}
	if n == 0 {
		return nil, 0, invalidf("csv has no data row")
	}
	return names, n, nil
}

// Affine is a public per-column affine map x_j ← (x_j − Center_j)/Scale_j,
// for scaling features by declared ranges before clipping.
type Affine struct {
	Center, Scale []float64
}

// Apply returns a scaled copy of x (n×d, d = len(Center)).
func (a Affine) Apply(x *mat.Dense) *mat.Dense {
	n, d := x.Dims()
	out := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			out.Set(i, j, (x.At(i, j)-a.Center[j])/a.Scale[j])
		}
	}
	return out
}
