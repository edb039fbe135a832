package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDirFindsSharedBesideModuleRoot(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	data := filepath.Join(root, "shared", "data")
	for _, d := range []string{filepath.Join(repo, "pkg", "sub"), data} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvVar, "")
	t.Chdir(filepath.Join(repo, "pkg", "sub"))
	got, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(data); got != data && got != want {
		t.Errorf("Dir() = %q, want %q", got, data)
	}
	// Without the shared folder: an error, not a wrong path.
	os.RemoveAll(filepath.Join(root, "shared"))
	if _, err := Dir(); err == nil {
		t.Error("Dir() succeeded without a shared folder")
	}
}
