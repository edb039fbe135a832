package grid

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseMATPOWER checks that the parser never panics and that every case it
// accepts validates and builds a DC network or fails with an error.
func FuzzParseMATPOWER(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.m"))
	bad, _ := filepath.Glob(filepath.Join("testdata", "bad", "*.m"))
	hostile, _ := filepath.Glob(filepath.Join("testdata", "hostile", "*.m"))
	for _, p := range append(append(files, bad...), hostile...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		c, err := ParseMATPOWER(strings.NewReader(src))
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("parsed case does not validate: %v", err)
		}
		if len(c.Buses) > 200 {
			return
		}
		_, _ = NewNetwork(c, DCOptions{})
	})
}
