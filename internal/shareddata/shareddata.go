// Package shareddata locates the project's shared data directory (the folder
// "shared" beside the repository root, holding PGLib cases and the SVM datasets)
// for tests and benchmarks. The data is read in place, never copied into the
// repository.
package shareddata

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// EnvVar overrides the location of the shared data folder ("…/shared/data").
const EnvVar = "PRIVOPT_SHARED_DATA"

// Dir returns the shared data folder: $PRIVOPT_SHARED_DATA if set, otherwise
// ../shared/data relative to the directory that holds go.mod, found by walking up
// from the working directory.
func Dir() (string, error) {
	if d := os.Getenv(EnvVar); d != "" {
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(filepath.Dir(dir), "shared", "data")
			if _, err := os.Stat(d); err != nil {
				return "", errors.New("shareddata: no shared/data folder beside the repository root")
			}
			return d, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("shareddata: go.mod not found above the working directory")
		}
		dir = parent
	}
}

// Path returns the path of rel inside the shared data folder, or skips the test
// with a clear message when the folder or the file is absent.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	d, err := Dir()
	if err != nil {
		tb.Skipf("shared data not available (%v); set %s or place the shared folder beside the repository", err, EnvVar)
	}
	p := filepath.Join(d, rel)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("shared data file %s not available: %v", rel, err)
	}
	return p
}
