package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/gateway"
	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/ledger/pgstore"
	"github.com/privopt/privopt/ledger/pgstore/pgtest"
)

const (
	adminTok = "admin-token-0123456789"
	aliceTok = "alice-token-0123456789"
	bobTok   = "bob-token-000123456789"
)

var tokensJSON = fmt.Sprintf(`{%q: {"name": "ops", "role": "admin"},
	%q: {"name": "alice", "role": "analyst", "datasets": ["a", "`+pgA+`"]},
	%q: {"name": "bob", "role": "analyst", "datasets": ["b"]}}`, adminTok, aliceTok, bobTok)

// writeData writes rows.csv (n rows x0,x1,y) and the demo case into a
// fresh data directory.
func writeData(t *testing.T, n int) string {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 1))
	var b strings.Builder
	b.WriteString("x0,x1,y\n")
	for i := 0; i < n; i++ {
		x0, x1 := r.Float64()-0.5, r.Float64()-0.5
		fmt.Fprintf(&b, "%g,%g,%g\n", x0, x1, 0.8*x0-0.3*x1+0.05*r.NormFloat64())
	}
	must(t, os.WriteFile(filepath.Join(dir, "rows.csv"), []byte(b.String()), 0o644))
	c, err := os.ReadFile(filepath.Join("..", "grid", "cases", "demo6.m"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "demo6.m"), c, 0o644))
	must(t, os.WriteFile(filepath.Join(t.TempDir(), "outside.csv"), []byte("x,y\n1,2\n"), 0o644))
	return dir
}

type service struct {
	url string
	led *ledger.Ledger
}

// pgA is the dataset of the PostgreSQL run (unique on a shared server).
var pgA = pgtest.Name("a")

func start(t *testing.T, led *ledger.Ledger, dir string, maxBody int64) service {
	tok, err := gateway.ParseTokens([]byte(tokensJSON))
	must(t, err)
	srv, err := gateway.New(gateway.Config{Ledger: led, Tokens: tok, DataDir: dir, MaxBody: maxBody, MaxConcurrent: 4, Log: log.New(io.Discard, "", 0)})
	must(t, err)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return service{url: hs.URL, led: led}
}

func sqliteLedger(t *testing.T) *ledger.Ledger {
	l, err := ledger.Open(context.Background(), filepath.Join(t.TempDir(), "budget.db"), ledger.Options{Create: true})
	must(t, err)
	t.Cleanup(func() { l.Close() })
	return l
}

func (s service) do(t *testing.T, method, path, token string, body []byte) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, bytes.NewReader(body))
	must(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	defer resp.Body.Close()
	var out map[string]any
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s %s: status %d, body not JSON: %q", method, path, resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%s %s: content type %q", method, path, ct)
	}
	return resp.StatusCode, out
}

func errCode(out map[string]any) string {
	e, _ := out["error"].(map[string]any)
	if e == nil {
		return ""
	}
	if m, _ := e["message"].(string); m == "" {
		return "(no message)"
	}
	c, _ := e["code"].(string)
	return c
}

func regressBody(ds, label string, eps float64, extra string) []byte {
	return []byte(fmt.Sprintf(`{"dataset": %q, "data": "rows.csv", "target": "y", "model": "ridge", "epsilon": %g, "delta": 1e-6, "noise": "analytic-gaussian", "label": %q%s}`, ds, eps, label, extra))
}

// laplaceBody is a regression request with Laplace noise (cheap to draw).
func laplaceBody(ds, label string, eps float64) []byte {
	return []byte(fmt.Sprintf(`{"dataset": %q, "data": "rows.csv", "target": "y", "model": "ridge", "epsilon": %g, "noise": "laplace", "label": %q}`, ds, eps, label))
}

func count(t *testing.T, l *ledger.Ledger, ds string) int64 {
	st, err := l.Budget(context.Background(), ds)
	must(t, err)
	return st.Count
}

// Requests without a token, with another analyst's token, over-size bodies,
// malformed JSON, unknown fields, paths outside the data directory and
// unknown endpoints each get their documented status and code and change
// nothing in the ledger; the budget that would be overspent answers 409.
func TestSecurity(t *testing.T) {
	ctx := context.Background()
	l := sqliteLedger(t)
	must(t, l.Init(ctx, "a", accounting.Budget{Epsilon: 1, Delta: 1e-5}))
	must(t, l.Init(ctx, "b", accounting.Budget{Epsilon: 1, Delta: 1e-5}))
	s := start(t, l, writeData(t, 200), 4096)
	ok := regressBody("a", "first", 0.5, "")
	for _, c := range []struct {
		name, method, path, token string
		body                      []byte
		status                    int
		code                      string
	}{
		{"no token", "POST", "/v1/regress/releases", "", ok, 401, "unauthorized"},
		{"bad token", "POST", "/v1/regress/releases", "not-a-token-at-all", ok, 401, "unauthorized"},
		{"no token, budget", "GET", "/v1/budgets/a", "", nil, 401, "unauthorized"},
		{"other analyst's dataset", "POST", "/v1/regress/releases", bobTok, ok, 403, "forbidden"},
		{"other analyst's budget", "GET", "/v1/budgets/a", bobTok, nil, 403, "forbidden"},
		{"analyst audit", "GET", "/v1/budgets/a/audit", aliceTok, nil, 403, "forbidden"},
		{"analyst creates budget", "POST", "/v1/budgets", aliceTok, []byte(`{"dataset": "c", "epsilon": 9}`), 403, "forbidden"},
		{"over-size body", "POST", "/v1/regress/releases", aliceTok, regressBody("a", strings.Repeat("x", 5000), 0.5, ""), 413, "body_too_large"},
		{"malformed JSON", "POST", "/v1/regress/releases", aliceTok, []byte(`{"dataset": "a", "epsilon": `), 400, "malformed_json"},
		{"trailing data", "POST", "/v1/regress/releases", aliceTok, append(ok, []byte(` {}`)...), 400, "malformed_json"},
		{"unknown field", "POST", "/v1/regress/releases", aliceTok, regressBody("a", "x", 0.5, `, "epsilonn": 3`), 400, "malformed_json"},
		{"path outside", "POST", "/v1/regress/releases", aliceTok, []byte(`{"dataset": "a", "data": "../outside.csv", "target": "y", "model": "ridge", "epsilon": 0.5}`), 400, "invalid_request"},
		{"absolute path", "POST", "/v1/regress/releases", aliceTok, []byte(`{"dataset": "a", "data": "/etc/passwd", "target": "y", "model": "ridge", "epsilon": 0.5}`), 400, "invalid_request"},
		{"missing file", "POST", "/v1/regress/releases", aliceTok, []byte(`{"dataset": "a", "data": "nope.csv", "target": "y", "model": "ridge", "epsilon": 0.5}`), 400, "file_not_found"},
		{"bad epsilon", "POST", "/v1/regress/releases", aliceTok, regressBody("a", "x", -1, ""), 400, "invalid_request"},
		{"wrong method", "GET", "/v1/regress/releases", aliceTok, nil, 405, "method_not_allowed"},
		{"unknown path", "GET", "/v1/nothing", aliceTok, nil, 404, "not_found"},
	} {
		st, out := s.do(t, c.method, c.path, c.token, c.body)
		if st != c.status || errCode(out) != c.code {
			t.Errorf("%s: %d %v, want %d %s", c.name, st, out, c.status, c.code)
		}
		if n := count(t, l, "a") + count(t, l, "b"); n != 0 {
			t.Fatalf("%s: %d spends recorded", c.name, n)
		}
	}
	// Two admitted releases of ε 0.5 fill the budget; the third is refused
	// with 409 and records nothing.
	for i := 0; i < 2; i++ {
		st, out := s.do(t, "POST", "/v1/regress/releases", aliceTok, regressBody("a", fmt.Sprint("r", i), 0.5, ""))
		if st != 200 || out["weights"] == nil {
			t.Fatalf("release %d: %d %v", i, st, out)
		}
	}
	st, out := s.do(t, "POST", "/v1/regress/releases", aliceTok, regressBody("a", "r2", 0.5, ""))
	if st != 409 || errCode(out) != "budget_exceeded" {
		t.Fatalf("third release: %d %v", st, out)
	}
	st, out = s.do(t, "GET", "/v1/budgets/a", aliceTok, nil)
	if st != 200 || out["count"] != 2.0 || out["releases"] != nil || out["remaining"].(map[string]any)["epsilon"] != 0.0 || !strings.Contains(out["composition"].(string), "basic composition") {
		t.Fatalf("budget: %d %v", st, out)
	}
	st, out = s.do(t, "GET", "/v1/budgets/a/audit", adminTok, nil)
	rel, _ := out["releases"].([]any)
	if st != 200 || len(rel) != 2 || rel[1].(map[string]any)["user_label"] != "r1" || rel[1].(map[string]any)["case"] != "rows.csv" {
		t.Fatalf("audit: %d %v", st, out)
	}
	// Admin creates a budget under the Gaussian-DP filter.
	st, out = s.do(t, "POST", "/v1/budgets", adminTok, []byte(`{"dataset": "g", "epsilon": 1, "delta": 1e-6, "filter": "gdp"}`))
	if st != 201 || out["filter"] != "gdp" {
		t.Fatalf("create: %d %v", st, out)
	}
	if st, out = s.do(t, "POST", "/v1/budgets", adminTok, []byte(`{"dataset": "g", "epsilon": 2, "delta": 1e-6}`)); st != 409 || errCode(out) != "dataset_exists" {
		t.Fatalf("re-create: %d %v", st, out)
	}
	if st, out = s.do(t, "GET", "/healthz", "", nil); st != 200 || out["status"] != "ok" {
		t.Fatalf("healthz: %d %v", st, out)
	}
}

// The OpenAPI document is valid JSON and documents every route the server
// serves, with its method.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	l := sqliteLedger(t)
	s := start(t, l, writeData(t, 10), 0)
	st, doc := s.do(t, "GET", "/openapi.json", "", nil)
	if st != 200 || doc["openapi"] != "3.1.0" {
		t.Fatalf("openapi: %d", st)
	}
	tok, _ := gateway.ParseTokens([]byte(tokensJSON))
	srv, err := gateway.New(gateway.Config{Ledger: l, Tokens: tok, DataDir: t.TempDir()})
	must(t, err)
	paths := doc["paths"].(map[string]any)
	for _, r := range srv.Routes() {
		method, path, _ := strings.Cut(r, " ")
		p, ok := paths[path].(map[string]any)
		if !ok || p[strings.ToLower(method)] == nil {
			t.Errorf("route %s is not in openapi.json", r)
		}
	}
	if len(paths) != len(srv.Routes()) {
		t.Errorf("openapi.json has %d paths, the server %d routes", len(paths), len(srv.Routes()))
	}
}

// One OPF cost release through the adapter: the answer has the plan and
// one release, the ledger entry carries the case and user labels.
func TestOPFRelease(t *testing.T) {
	ctx := context.Background()
	l := sqliteLedger(t)
	must(t, l.Init(ctx, "a", accounting.Budget{Epsilon: 2}))
	s := start(t, l, writeData(t, 10), 0)
	st, out := s.do(t, "POST", "/v1/opf/releases", aliceTok, []byte(`{"dataset": "a", "case": "demo6.m", "epsilon": 1, "label": "hour 7"}`))
	if st != 200 {
		t.Fatalf("opf: %d %v", st, out)
	}
	rels, _ := out["releases"].([]any)
	plan, _ := out["plan"].(map[string]any)
	if len(rels) != 1 || plan == nil || plan["guarantee"] == nil || rels[0].(map[string]any)["released_value"] == nil {
		t.Fatalf("opf answer %v", out)
	}
	stt, err := l.Status(ctx, "a")
	must(t, err)
	if stt.Count != 1 || stt.Releases[0].Case != "demo6.m" || stt.Releases[0].UserLabel != "hour 7" {
		t.Fatalf("ledger %+v", stt.Releases)
	}
	if st, out = s.do(t, "POST", "/v1/opf/releases", aliceTok, []byte(`{"dataset": "a", "case": "demo6.m", "epsilon": 1, "loads": "rows.csv"}`)); st != 400 {
		t.Fatalf("loads with the current adapter: %d %v", st, out)
	}
}

// 8 clients × 50 Laplace releases of ε ≈ 1/64 (plus the floating-point
// snapping term) against one budget ε = 4 over HTTP: the budget is filled
// exactly — k releases of cost c admitted with k·c ≤ 4 < (k+1)·c, the rest
// answer 409 — never overspent, and every admitted release is in the audit
// log under its label; on SQLite and PostgreSQL.
func TestConcurrentClients(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { concurrentClients(t, sqliteLedger(t), "a") })
	t.Run("postgres", func(t *testing.T) {
		l, err := pgstore.OpenLedger(context.Background(), pgtest.URL(t), ledger.Options{})
		must(t, err)
		t.Cleanup(func() { l.Close() })
		concurrentClients(t, l, pgA)
	})
}

func concurrentClients(t *testing.T, l *ledger.Ledger, ds string) {
	ctx := context.Background()
	must(t, l.Init(ctx, ds, accounting.Budget{Epsilon: 4, Delta: 1e-3}))
	s := start(t, l, writeData(t, 100), 0)
	var mu sync.Mutex
	admitted := map[string]bool{}
	refused := 0
	var wg sync.WaitGroup
	t0 := time.Now()
	for c := 0; c < 8; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				label := fmt.Sprintf("c%d-%d", c, i)
				req, _ := http.NewRequest("POST", s.url+"/v1/regress/releases", bytes.NewReader(laplaceBody(ds, label, 1.0/64)))
				req.Header.Set("Authorization", "Bearer "+aliceTok)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				switch resp.StatusCode {
				case 200:
					admitted[label] = true
				case 409:
					refused++
				default:
					t.Errorf("%s: status %d", label, resp.StatusCode)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	took := time.Since(t0)
	st, err := l.Status(ctx, ds)
	must(t, err)
	logged := map[string]bool{}
	for _, e := range st.Releases {
		logged[e.UserLabel] = true
	}
	for lb := range admitted {
		if !logged[lb] {
			t.Errorf("admitted release %s is not in the audit log", lb)
		}
	}
	t.Logf("8 clients × 50 releases: %d admitted, %d refused in %v (%.0f requests/s, %.0f spends/s)", len(admitted), refused, took.Round(time.Millisecond),
		400/took.Seconds(), float64(len(admitted))/took.Seconds())
	c := st.Releases[0].Cost.Epsilon
	k := int64(len(admitted))
	if !(c >= 1.0/64 && c < 1.01/64) || st.Count != k || int(k)+refused != 400 || !(float64(k)*c <= 4 && float64(k+1)*c > 4) || st.Spent.Epsilon > 4 {
		t.Fatalf("admitted %d (cost %v each), refused %d, logged %d, spent %v of 4", k, c, refused, st.Count, st.Spent.Epsilon)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// fake is a Releaser that signals entered, then waits for block (or, when
// block is nil, for the request's deadline), or fails with a
// private-looking error.
type fake struct {
	entered chan struct{}
	block   chan struct{}
	err     error
}

func (f fake) OPF(ctx context.Context, led *ledger.Ledger, req gateway.OPFRequest, _ gateway.OPFFiles) (json.RawMessage, error) {
	if f.err != nil {
		return nil, f.err
	}
	if f.entered != nil {
		f.entered <- struct{}{}
	}
	if f.block == nil {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	<-f.block
	return json.RawMessage(`{"plan": {}, "releases": []}`), nil
}

func (f fake) Regress(ctx context.Context, led *ledger.Ledger, req gateway.RegressRequest, _ gateway.RegressFiles) (json.RawMessage, error) {
	return f.OPF(ctx, led, gateway.OPFRequest{}, gateway.OPFFiles{})
}

// The time limit answers 504 timeout, a full set of release slots 503
// overloaded, and an unexpected release error 500 internal without its text.
func TestLimitsAndInternalErrors(t *testing.T) {
	ctx := context.Background()
	l := sqliteLedger(t)
	must(t, l.Init(ctx, "a", accounting.Budget{Epsilon: 1}))
	dir := writeData(t, 10)
	tok, _ := gateway.ParseTokens([]byte(tokensJSON))
	body := []byte(`{"dataset": "a", "case": "demo6.m", "epsilon": 1}`)
	serve := func(f fake, slots int, timeout time.Duration) service {
		srv, err := gateway.New(gateway.Config{Ledger: l, Tokens: tok, DataDir: dir, MaxConcurrent: slots, Timeout: timeout, Releaser: f, Log: log.New(io.Discard, "", 0)})
		must(t, err)
		hs := httptest.NewServer(srv)
		t.Cleanup(hs.Close)
		return service{url: hs.URL, led: l}
	}
	// A release that outlives the time limit.
	if st, out := serve(fake{}, 1, 50*time.Millisecond).do(t, "POST", "/v1/opf/releases", aliceTok, body); st != 504 || errCode(out) != "timeout" {
		t.Fatalf("slow release: %d %v", st, out)
	}
	// One slot, held by a release until block is closed: the second request
	// waits until its deadline and is refused.
	f := fake{entered: make(chan struct{}, 1), block: make(chan struct{})}
	s := serve(f, 1, 200*time.Millisecond)
	first := make(chan int)
	go func() {
		st, _ := s.do(t, "POST", "/v1/opf/releases", aliceTok, body)
		first <- st
	}()
	<-f.entered
	if st, out := s.do(t, "POST", "/v1/opf/releases", aliceTok, body); st != 503 || errCode(out) != "overloaded" {
		t.Fatalf("second request with the slot busy: %d %v", st, out)
	}
	close(f.block)
	if st := <-first; st != 200 {
		t.Fatalf("first request: %d", st)
	}
	st, out := serve(fake{err: fmt.Errorf("solver moved by 2.7599692649990386")}, 1, 0).do(t, "POST", "/v1/opf/releases", aliceTok, body)
	if st != 500 || errCode(out) != "internal" || strings.Contains(fmt.Sprint(out), "2.7599") {
		t.Fatalf("internal error: %d %v", st, out)
	}
}
