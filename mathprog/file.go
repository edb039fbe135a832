package mathprog

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/privopt/privopt/internal/fileio"
)

// ReadFile reads an MPS/QPS file (extensions .mps, .qps, .sif, .freemps) or
// an LP file (.lp), each optionally gzipped (.gz; the compression is
// recognized by the file's magic bytes), with the default Limits.
func ReadFile(path string) (*Model, error) {
	ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(strings.ToLower(path), ".gz")))
	var read func(io.Reader) (*Model, error)
	switch ext {
	case ".mps", ".qps", ".sif", ".freemps":
		read = func(r io.Reader) (*Model, error) { return ReadMPS(r, Limits{}) }
	case ".lp":
		read = func(r io.Reader) (*Model, error) { return ReadLP(r, Limits{}) }
	default:
		return nil, fmt.Errorf("mathprog: cannot read %q: extension %q is not .mps, .qps, .sif or .lp", path, ext)
	}
	rc, err := fileio.Open(path)
	if err != nil {
		return nil, fmt.Errorf("mathprog: %w", err)
	}
	defer rc.Close()
	m, err := read(rc)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return m, nil
}
