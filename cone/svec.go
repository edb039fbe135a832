package cone

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// SVecIndex returns the position of entry (i, j) of an n×n symmetric matrix in its
// scaled lower-triangular column-major svec (the PSD cone's coordinates):
//
//	svec(S) = (S11, √2·S21, …, √2·Sn1, S22, √2·S32, …, Snn)
//	index(i, j) = j·n − j(j−1)/2 + (i − j)   for i ≥ j (0-based)
//
// (i, j) and (j, i) share one position. It panics if i or j is outside [0, n).
func SVecIndex(n, i, j int) int {
	if i < 0 || j < 0 || i >= n || j >= n {
		panic(fmt.Sprintf("cone: SVecIndex(%d, %d, %d) out of range", n, i, j))
	}
	if i < j {
		i, j = j, i
	}
	return j*n - j*(j-1)/2 + (i - j)
}

// SVec stores the scaled svec of the symmetric matrix a into dst and returns it:
// diagonal entries as they are, off-diagonal entries of the lower triangle times √2,
// column by column. With this scaling ⟨SVec(A), SVec(B)⟩ = tr(AB) and
// ‖SVec(A)‖₂ = ‖A‖_F. dst is reused when its length is n(n+1)/2, otherwise a new
// slice is allocated.
func SVec(dst []float64, a mat.Symmetric) []float64 {
	n := a.SymmetricDim()
	d := n * (n + 1) / 2
	if len(dst) != d {
		dst = make([]float64, d)
	}
	k := 0
	for j := 0; j < n; j++ {
		dst[k] = a.At(j, j)
		k++
		for i := j + 1; i < n; i++ {
			dst[k] = math.Sqrt2 * a.At(i, j)
			k++
		}
	}
	return dst
}

// SMat is the inverse of SVec: it returns the n×n symmetric matrix S with
// SVec(S) = s, where len(s) = n(n+1)/2, storing it in dst when dst is n×n (a nil
// or differently sized dst is replaced by a new matrix). It returns an error when
// len(s) is not a triangular number.
func SMat(dst *mat.SymDense, s []float64) (*mat.SymDense, error) {
	n := PSDOrder(len(s))
	if n < 0 {
		return nil, fmt.Errorf("%w: svec has length %d, must be n(n+1)/2", ErrDimension, len(s))
	}
	if dst == nil || dst.SymmetricDim() != n {
		dst = mat.NewSymDense(n, nil)
	}
	k := 0
	for j := 0; j < n; j++ {
		dst.SetSym(j, j, s[k])
		k++
		for i := j + 1; i < n; i++ {
			dst.SetSym(i, j, s[k]/math.Sqrt2)
			k++
		}
	}
	return dst, nil
}

// psdEigen returns the eigenvalues (ascending) and, when vectors is true, the
// eigenvectors of smat(s). len(s) must be triangular.
func psdEigen(s []float64, vectors bool) ([]float64, *mat.Dense, error) {
	a, err := SMat(nil, s)
	if err != nil {
		return nil, nil, err
	}
	var es mat.EigenSym
	if ok := es.Factorize(a, vectors); !ok {
		return nil, nil, fmt.Errorf("cone: symmetric eigendecomposition of a %d×%d matrix did not converge", a.SymmetricDim(), a.SymmetricDim())
	}
	vals := es.Values(nil)
	if !vectors {
		return vals, nil, nil
	}
	var v mat.Dense
	es.VectorsTo(&v)
	return vals, &v, nil
}
