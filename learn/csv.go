package learn

import (
	"io"

	"gonum.org/v1/gonum/mat"
)

// ReadCSV reads a CSV file with a header row: every column except target is
// a feature (in file order). It returns the data and the feature names.
// Malformed records are replaced by the public row of zeros (CSVRule;
// ReadCSVReplaced also returns their count): only a missing target column,
// an empty file or a read failure is an error, and no error text holds a
// cell.
func ReadCSV(r io.Reader, target string) (Data, []string, error) {
	data, names, _, err := ReadCSVReplaced(r, target)
	return data, names, err
}

// ReadCSVReplaced is ReadCSV that also returns the number of records
// replaced by the public row (a private diagnostic).
func ReadCSVReplaced(r io.Reader, target string) (Data, []string, int, error) {
	rows, err := NewCSVRows(r, target)
	if err != nil {
		return Data{}, nil, 0, err
	}
	d := len(rows.Names())
	var xs, y []float64
	for {
		x, v, err := rows.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Data{}, nil, 0, err
		}
		xs = append(xs, x...)
		y = append(y, v)
	}
	if len(y) == 0 {
		return Data{}, nil, 0, invalidf("csv has a header and no data row")
	}
	return Data{X: mat.NewDense(len(y), d, xs), Y: y}, rows.Names(), rows.Replaced(), nil
}

// ReadCSVShape reads only the public shape of a CSV file in ReadCSV's
// format: the feature names (every column except target, in file order) and
// the number of data records n (public under replace-one adjacency; every
// record counts, malformed or not, as in ReadCSV). No value is parsed, so a
// release plan can be computed before any private value is read.
func ReadCSVShape(r io.Reader, target string) ([]string, int, error) {
	rows, err := NewCSVRows(r, target)
	if err != nil {
		return nil, 0, err
	}
	n := 0
	for {
		_, err := rows.rd.Read()
		if err == io.EOF {
			break
		}
		if err != nil && !isParseError(err) {
			return nil, 0, invalidf("csv: reading line %d failed", n+2)
		}
		n++
	}
	if n == 0 {
		return nil, 0, invalidf("csv has no data row")
	}
	return rows.Names(), n, nil
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
