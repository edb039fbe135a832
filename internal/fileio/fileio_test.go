package fileio

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestOpenPlainAndGzip(t *testing.T) {
	dir := t.TempDir()
	const text = "NAME test\nENDATA\n"
	plain := filepath.Join(dir, "a.mps")
	if err := os.WriteFile(plain, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	zipped := filepath.Join(dir, "a.mps.gz")
	f, err := os.Create(zipped)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write([]byte(text))
	zw.Close()
	f.Close()
	for _, p := range []string{plain, zipped} {
		r, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || string(got) != text {
			t.Errorf("%s: got %q, %v; want %q", filepath.Base(p), got, err, text)
		}
	}
	if _, err := Open(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing file: no error")
	}
}
