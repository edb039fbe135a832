package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privopt/privopt/accounting"
)

// corruptFixture writes a ledger with 200 spends (several pages), closes it
// (checkpointing the WAL into the main file) and returns its bytes.
func corruptFixture(t *testing.T) []byte {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "src.db")
	l, err := Open(ctx, path, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	must(t, l.Init(ctx, "d", accounting.Budget{Epsilon: 100}))
	for i := 0; i < 200; i++ {
		e := entry("a fairly long query description to fill pages "+strings.Repeat("x", 100), 0.25, 0)
		must(t, l.Spend(ctx, "d", e))
	}
	must(t, l.Close())
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatalf("WAL file left after close")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCorruptFiles: every damaged file gives an error wrapping ErrCorrupt
// (or ErrNotLedger) that names the file, and Open leaves the file's bytes
// unchanged, so the recorded spends can still be recovered from it.
func TestCorruptFiles(t *testing.T) {
	good := corruptFixture(t)
	if len(good) < 8*4096 {
		t.Fatalf("fixture has only %d bytes", len(good))
	}
	zeroPage := func(b []byte, page int) []byte {
		b = bytes.Clone(b)
		copy(b[page*4096:(page+1)*4096], make([]byte, 4096))
		return b
	}
	garble := func(b []byte, page int) []byte {
		b = bytes.Clone(b)
		for i := page * 4096; i < (page+1)*4096; i += 7 {
			b[i] ^= 0x5a
		}
		return b
	}
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrCorrupt},
		{"header only", good[:60], ErrCorrupt},
		{"truncated to half", good[:len(good)/2], ErrCorrupt},
		{"last page cut", good[:len(good)-4096], ErrCorrupt},
		{"magic overwritten", append([]byte("not a database!!"), good[16:]...), ErrCorrupt},
		{"page 3 zeroed", zeroPage(good, 3), ErrCorrupt},
		{"page 5 garbled", garble(good, 5), ErrCorrupt},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.db")
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := Open(context.Background(), path, Options{Create: true})
			if err == nil {
				// A damage SQLite does not see at open must show at the
				// first read of the log.
				_, err = l.Status(context.Background(), "d")
				if err == nil {
					err = l.Spend(context.Background(), "d", entry("q", 0.1, 0))
				}
				l.Close()
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("error %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(after, c.data) {
				t.Fatalf("the damaged file was modified (%d → %d bytes)", len(c.data), len(after))
			}
			t.Logf("%s: %v", c.name, err)
		})
	}
	// A SQLite database that is not a ledger.
	path := filepath.Join(t.TempDir(), "other.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t(x)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(context.Background(), path, Options{}); !errors.Is(err, ErrNotLedger) {
		t.Fatalf("foreign database: %v", err)
	}
	// The undamaged copy still holds all 200 spends.
	path = filepath.Join(t.TempDir(), "good.db")
	must(t, os.WriteFile(path, good, 0o644))
	l, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	st, err := l.Status(context.Background(), "d")
	if err != nil || len(st.Releases) != 200 || st.Spent.Epsilon != 50 {
		t.Fatalf("intact copy: %v, %d releases", err, len(st.Releases))
	}
}
