package opfrelease

import (
	"strings"
	"testing"
)

// TestParseQueryRangeCap: a huge range is an error, not an expansion.
func TestParseQueryRangeCap(t *testing.T) {
	if _, err := ParseQuery("gen-subset:1-99999999999"); err == nil || !strings.Contains(err.Error(), "1000000") {
		t.Errorf("error %v, want one naming the cap", err)
	}
	if _, err := ParseQuery("gen-subset:1-600000,1-600000"); err == nil {
		t.Error("two ranges of 600,000 accepted")
	}
	q, err := ParseQuery("gen-subset:2-4,7")
	if err != nil || len(q.Gens) != 4 || q.Gens[0] != 1 || q.Gens[3] != 6 {
		t.Errorf("gen-subset:2-4,7 → %v, %v", q, err)
	}
}
