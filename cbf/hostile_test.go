package cbf

import (
	"errors"
	"strings"
	"testing"
)

// TestHostileHeaders: tiny files whose headers declare huge sizes are
// rejected with a SyntaxError naming the sizes, before anything of the
// declared size is allocated (these once ran out of memory: a 20-byte
// PSDVAR 2222, a 67M-variable VAR, a 67M-cone count).
func TestHostileHeaders(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"psdvar-2222", "VER\n1\nPSDVAR\n1\n2222\n", "declares 2469753 columns and 2469753 rows"},
		{"var-67M", "VER\n1\nVAR\n67108864 1\nF 67108864\n", "declares 67108864 columns and 0 rows"},
		{"con-67M", "VER\n1\nVAR\n1 1\nF 1\nCON\n67108864 1\nL+ 67108864\n", "declares 1 columns and 67108864 rows"},
		{"var-67M-cones", "VER\n1\nVAR\n67108864 67108864\n", "file truncated"},
		{"psdvar-count", "VER\n1\nPSDVAR\n67108864\n", "file truncated"},
		{"pow-count", "VER\n3\nPOWCONES\n67108864 67108864\n", "file truncated"},
		{"coord-count", "VER\n1\nVAR\n1 1\nF 1\nOBJACOORD\n2147483647\n", "file truncated after 0 of 2147483647"},
		{"psd-order", "VER\n1\nPSDVAR\n1\n99999\n", "matrix order is 99999, must be in [1, 8192]"},
	} {
		_, err := Read(strings.NewReader(tc.in))
		if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want ErrSyntax containing %q", tc.name, err, tc.want)
		}
	}
}

// TestSizeLimitScalesWithInput: the same large declaration is accepted when
// the file is long enough to describe it (here: comment padding stands for
// real coordinate lines).
func TestSizeLimitScalesWithInput(t *testing.T) {
	head := "VER\n1\nVAR\n2000000 1\nL+ 2000000\n"
	if _, err := Read(strings.NewReader(head)); err == nil {
		t.Fatal("2,000,000 columns from 30 bytes accepted")
	}
	pad := strings.Repeat("# padding line standing in for coordinates\n", 4000000/DimensionPerByte/40+1)
	if _, err := Read(strings.NewReader(head + pad)); err != nil {
		t.Fatalf("2,000,000 columns from %d bytes rejected: %v", len(head)+len(pad), err)
	}
}
