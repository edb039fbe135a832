package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/internal/invariance"
)

// writeLoads writes LOADS.csv for demo6 with k hourly columns h00… (the
// case's loads times 0.9 … 1.1).
func writeLoads(t *testing.T, dir string, k int) {
	c, err := grid.ReadCase(filepath.Join(dir, "demo6.m"))
	must(t, err)
	net, err := grid.NewNetwork(c, grid.PowerModelsDC())
	must(t, err)
	labels, cols := make([]string, k), make([][]float64, k)
	for h := range cols {
		labels[h] = fmt.Sprintf("h%02d", h)
		for _, d := range net.Load {
			cols[h] = append(cols[h], d*(0.9+0.2*float64(h)/float64(k)))
		}
	}
	must(t, invariance.WriteLoadsCSV(filepath.Join(dir, "loads.csv"), net, labels, cols))
}

func rawJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	must(t, err)
	return string(b)
}

// Create a plan once (saved under the data directory), verify it by name
// and inline, detect an edited and a foreign plan file (422 plan_mismatch
// naming the field), then release three hourly columns with it: the
// releases' plan is the created plan, byte for byte, and each column is one
// labelled ledger entry. Role and request errors change nothing.
func TestPlanEndpoints(t *testing.T) {
	ctx := context.Background()
	l := sqliteLedger(t)
	must(t, l.Init(ctx, "a", accounting.Budget{Epsilon: 10}))
	dir := writeData(t, 10)
	writeLoads(t, dir, 3)
	s := start(t, l, dir, 0)

	st, out := s.do(t, "POST", "/v1/opf/plans", aliceTok, []byte(`{"dataset": "a", "case": "demo6.m", "epsilon": 0.5, "save": "plan.json"}`))
	if st != 200 || out["saved"] != "plan.json" || out["plan"] == nil || out["plan_file"] == nil {
		t.Fatalf("create plan: %d %v", st, out)
	}
	plan := rawJSON(t, out["plan"])
	saved, err := os.ReadFile(filepath.Join(dir, "plan.json"))
	must(t, err)
	var pf map[string]any
	must(t, json.Unmarshal(saved, &pf))
	if rawJSON(t, pf) != rawJSON(t, out["plan_file"]) || rawJSON(t, pf["plan"]) != plan {
		t.Fatal("the saved plan file differs from the answer's plan_file")
	}
	if c, _ := l.Status(ctx, "a"); c.Count != 0 {
		t.Fatalf("creating a plan spent: %+v", c)
	}

	// Verify by name and inline.
	st, out = s.do(t, "POST", "/v1/opf/plans/verify", aliceTok, []byte(`{"case": "demo6.m", "plan": "plan.json"}`))
	if st != 200 || out["verified"] != true || rawJSON(t, out["plan"]) != plan {
		t.Fatalf("verify by name: %d %v", st, out)
	}
	st, out = s.do(t, "POST", "/v1/opf/plans/verify", aliceTok, []byte(`{"dataset": "a", "case": "demo6.m", "plan_file": `+string(saved)+`}`))
	if st != 200 || out["verified"] != true {
		t.Fatalf("verify inline: %d %v", st, out)
	}
	// An edited plan file: ε raised in the inputs, the saved plan kept.
	edited := strings.Replace(string(saved), `"epsilon": 0.5`, `"epsilon": 0.6`, 1)
	if edited == string(saved) {
		t.Fatal("test setup: no epsilon input to edit")
	}
	st, out = s.do(t, "POST", "/v1/opf/plans/verify", aliceTok, []byte(`{"case": "demo6.m", "plan_file": `+edited+`}`))
	if msg := fmt.Sprint(out["error"]); st != 422 || errCode(out) != "plan_mismatch" || !strings.Contains(msg, `field "epsilon"`) {
		t.Fatalf("edited plan: %d %v", st, out)
	}
	// The plan of another network (one branch rating changed).
	c, err := os.ReadFile(filepath.Join(dir, "demo6.m"))
	must(t, err)
	other := strings.Replace(string(c), "1	4	0.02	0.20	0	80	80	80", "1	4	0.02	0.20	0	81	81	81", 1)
	must(t, os.WriteFile(filepath.Join(dir, "other.m"), []byte(other), 0o644))
	st, out = s.do(t, "POST", "/v1/opf/plans/verify", aliceTok, []byte(`{"case": "other.m", "plan": "plan.json"}`))
	if msg := fmt.Sprint(out["error"]); st != 422 || errCode(out) != "plan_mismatch" || !strings.Contains(msg, "digest") {
		t.Fatalf("plan of another network: %d %v", st, out)
	}

	// Release three hours with the saved plan.
	st, out = s.do(t, "POST", "/v1/opf/releases", aliceTok, []byte(`{"dataset": "a", "case": "demo6.m", "plan": "plan.json", "loads": "loads.csv", "label": "day 1"}`))
	rels, _ := out["releases"].([]any)
	if st != 200 || len(rels) != 3 || rawJSON(t, out["plan"]) != plan || out["batch"] != nil {
		t.Fatalf("release with the plan: %d %v", st, out)
	}
	stt, err := l.Status(ctx, "a")
	must(t, err)
	if stt.Count != 3 || stt.Releases[2].Label != "h02" || stt.Releases[2].UserLabel != "day 1" || stt.Releases[2].Case != "demo6.m" {
		t.Fatalf("ledger after the plan's releases: %+v", stt.Releases)
	}

	// Errors, each changing nothing.
	for _, c := range []struct {
		path, tok, body string
		status          int
		code            string
	}{
		{"/v1/opf/releases", aliceTok, `{"dataset": "a", "case": "demo6.m", "plan": "plan.json", "epsilon": 1}`, 400, "invalid_request"},
		{"/v1/opf/releases", aliceTok, `{"dataset": "a", "case": "other.m", "plan": "plan.json"}`, 422, "plan_mismatch"},
		{"/v1/opf/plans", bobTok, `{"dataset": "a", "case": "demo6.m", "epsilon": 1}`, 403, "forbidden"},
		{"/v1/opf/plans", "", `{"dataset": "a", "case": "demo6.m", "epsilon": 1}`, 401, "unauthorized"},
		{"/v1/opf/plans", aliceTok, `{"dataset": "a", "case": "demo6.m", "epsilon": 1, "loads": "loads.csv"}`, 400, "malformed_json"},
		{"/v1/opf/plans", aliceTok, `{"dataset": "a", "case": "demo6.m", "epsilon": 1, "save": "../x.json"}`, 400, "invalid_request"},
		{"/v1/opf/plans", aliceTok, `{"dataset": "a", "case": "demo6.m", "epsilon": 1, "save": "rows.csv"}`, 400, "invalid_request"},
		{"/v1/opf/plans", aliceTok, `{"dataset": "a", "case": "demo6.m", "epsilon": 1, "save": "plan.json"}`, 409, "plan_exists"},
		{"/v1/opf/plans/verify", bobTok, `{"dataset": "a", "case": "demo6.m", "plan": "plan.json"}`, 403, "forbidden"},
		{"/v1/opf/plans/verify", aliceTok, `{"case": "demo6.m"}`, 400, "invalid_request"},
		{"/v1/opf/plans/verify", aliceTok, `{"case": "demo6.m", "plan": "plan.json", "plan_file": {}}`, 400, "invalid_request"},
		{"/v1/opf/plans/verify", aliceTok, `{"case": "demo6.m", "plan_file": {"format": "x"}}`, 400, "invalid_request"},
	} {
		st, out := s.do(t, "POST", c.path, c.tok, []byte(c.body))
		if st != c.status || errCode(out) != c.code {
			t.Errorf("%s %s: %d %v, want %d %s", c.path, c.body, st, out, c.status, c.code)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "plan.json")); string(b) != string(saved) {
		t.Error("the saved plan file was overwritten")
	}
	if stt, _ := l.Status(ctx, "a"); stt.Count != 3 {
		t.Errorf("the refused requests spent: %d entries", stt.Count)
	}
}

// A dataset under the PLD-batch composition: 24 hourly columns under one
// plan are charged ONE batch cost in one transaction — the PLD composition
// of 24 (ε, 0)-DP releases, below basic composition's 24ε and at least the
// optimal composition (Kairouz et al.) — and every entry states it. A
// second day does not fit the budget and is refused whole (nothing drawn);
// the same day on a basic dataset refuses the hours past the budget.
func TestBatchRelease(t *testing.T) {
	ctx := context.Background()
	l := sqliteLedger(t)
	must(t, l.Init(ctx, "b", accounting.Budget{Epsilon: 2.2, Delta: 1e-6}))
	dir := writeData(t, 10)
	writeLoads(t, dir, 24)
	s := start(t, l, dir, 0)
	st, out := s.do(t, "POST", "/v1/budgets", adminTok, []byte(`{"dataset": "a", "epsilon": 2.2, "delta": 1e-6, "filter": "pld-batch(delta=1e-7)"}`))
	if comp, _ := out["composition"].(string); st != 201 || out["filter"] != "pld-batch(delta=1e-07)" || !strings.Contains(comp, "PLD composition at δ = 1e-07") {
		t.Fatalf("create the pld-batch budget: %d %v", st, out)
	}
	st, out = s.do(t, "POST", "/v1/opf/plans", aliceTok, []byte(`{"dataset": "a", "case": "demo6.m", "epsilon": 0.1, "save": "plan.json"}`))
	if st != 200 {
		t.Fatalf("create plan: %d %v", st, out)
	}
	eps := out["plan"].(map[string]any)["epsilon"].(float64) // 0.1 plus the snapping term
	st, out = s.do(t, "POST", "/v1/opf/releases", aliceTok, []byte(`{"dataset": "a", "case": "demo6.m", "plan": "plan.json", "loads": "loads.csv"}`))
	rels, _ := out["releases"].([]any)
	batch, _ := out["batch"].(map[string]any)
	if st != 200 || len(rels) != 24 || batch == nil || batch["releases"] != 24.0 {
		t.Fatalf("batch release: %d %v", st, out)
	}
	stt, err := l.Status(ctx, "a")
	must(t, err)
	want, _, err := accounting.PLDBatchFilter{Delta: 1e-7}.BatchCharge(accounting.Charge{Cost: accounting.Cost{Epsilon: eps}}, 24)
	must(t, err)
	if stt.Count != 24 || stt.Spent != want || !(want.Epsilon < 24*eps) || want.Delta != 1e-7 {
		t.Fatalf("spent %+v over %d entries, want the batch charge %+v < basic %g", stt.Spent, stt.Count, want, 24*eps)
	}
	if bc := batch["cost"].(map[string]any); bc["epsilon"] != want.Epsilon || bc["delta"] != want.Delta {
		t.Errorf("answer's batch cost %v, ledger %+v", bc, want)
	}
	for i, e := range stt.Releases {
		if e.Batch != fmt.Sprintf("%d/24@1", i+1) || !strings.Contains(e.Composition, "PLD composition") || e.Label != fmt.Sprintf("h%02d", i) {
			t.Fatalf("entry %d: batch %q, label %q, composition %q", e.Seq, e.Batch, e.Label, e.Composition)
		}
	}
	// A second day: 2 × batch > 2.2: refused whole.
	st, out = s.do(t, "POST", "/v1/opf/releases", aliceTok, []byte(`{"dataset": "a", "case": "demo6.m", "plan": "plan.json", "loads": "loads.csv"}`))
	if st != 409 || errCode(out) != "budget_exceeded" {
		t.Fatalf("second day: %d %v", st, out)
	}
	if b, _ := l.Budget(ctx, "a"); b.Count != 24 {
		t.Fatalf("the refused batch spent: %d entries", b.Count)
	}
	// Basic composition: ⌊2.2/ε⌋ = 21 hours released, the rest refused.
	st, out = s.do(t, "POST", "/v1/opf/releases", bobTok, []byte(`{"dataset": "b", "case": "demo6.m", "plan": "plan.json", "loads": "loads.csv"}`))
	rels, _ = out["releases"].([]any)
	refused, _ := out["refused_labels"].([]any)
	if st != 200 || len(rels) != 21 || len(refused) != 3 || out["batch"] != nil {
		t.Fatalf("basic dataset: %d, %d releases, refused %v", st, len(rels), refused)
	}
	if b, _ := l.Budget(ctx, "b"); b.Count != 21 || !strings.Contains(b.Composition, "basic composition") {
		t.Fatalf("basic dataset budget %+v", b)
	}
}

// Concurrent batch requests against one PLD-batch budget that holds exactly
// two days: exactly two requests get their 24 releases, the others 409 with
// nothing drawn or recorded; the ledger holds two whole batches.
func TestConcurrentBatches(t *testing.T) {
	ctx := context.Background()
	l := sqliteLedger(t)
	dir := writeData(t, 10)
	writeLoads(t, dir, 24)
	s := start(t, l, dir, 0)
	st, out := s.do(t, "POST", "/v1/opf/plans", aliceTok, []byte(`{"dataset": "a", "case": "demo6.m", "epsilon": 0.1, "save": "plan.json"}`))
	if st != 200 {
		t.Fatalf("create plan: %d %v", st, out)
	}
	eps := out["plan"].(map[string]any)["epsilon"].(float64)
	one, _, err := accounting.PLDBatchFilter{Delta: 1e-7}.BatchCharge(accounting.Charge{Cost: accounting.Cost{Epsilon: eps}}, 24)
	must(t, err)
	// Room for two batches (ε and δ), not three.
	must(t, l.InitFilter(ctx, "a", accounting.Budget{Epsilon: 2.5 * one.Epsilon, Delta: 2.5e-7}, "pld-batch(delta=1e-7)"))
	const clients = 6
	codes := make(chan int, clients)
	for c := 0; c < clients; c++ {
		go func(c int) {
			st, out := s.do(t, "POST", "/v1/opf/releases", aliceTok, []byte(fmt.Sprintf(`{"dataset": "a", "case": "demo6.m", "plan": "plan.json", "loads": "loads.csv", "label": "client %d"}`, c)))
			if rels, _ := out["releases"].([]any); st == 200 && len(rels) != 24 {
				st = -len(rels)
			}
			codes <- st
		}(c)
	}
	ok, refused := 0, 0
	for c := 0; c < clients; c++ {
		switch <-codes {
		case 200:
			ok++
		case 409:
			refused++
		}
	}
	stt, err := l.Status(ctx, "a")
	must(t, err)
	if ok != 2 || refused != clients-2 || stt.Count != 48 || stt.Spent.Epsilon > 2.5*one.Epsilon {
		t.Fatalf("%d batches answered whole, %d refused; ledger %d entries, spent %+v (one batch %+v)", ok, refused, stt.Count, stt.Spent, one)
	}
}
