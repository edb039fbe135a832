package gateway_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/gateway"
	"github.com/privopt/privopt/ledger"
)

// A service over an in-memory ledger: the budget of a granted dataset, and
// the documented error without a token.
func Example() {
	ctx := context.Background()
	led := ledger.New(ledger.NewMemoryStore())
	led.Init(ctx, "grid", accounting.Budget{Epsilon: 2, Delta: 1e-6})
	tokens, err := gateway.ParseTokens([]byte(`{"alice-0123456789abcdef": {"name": "alice", "role": "analyst", "datasets": ["grid"]}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "data")
	defer os.RemoveAll(filepath.Clean(dir))
	srv, err := gateway.New(gateway.Config{Ledger: led, Tokens: tokens, DataDir: dir, Log: log.New(io.Discard, "", 0)})
	if err != nil {
		fmt.Println(err)
		return
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	get := func(token string) {
		req, _ := http.NewRequest("GET", hs.URL+"/v1/budgets/grid", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		body := strings.Join(strings.Fields(string(b)), " ")
		if len(body) > 60 {
			body = body[:60] + "…"
		}
		fmt.Println(resp.StatusCode, body)
	}
	get("alice-0123456789abcdef")
	get("")
	// Output:
	// 200 { "dataset": "grid", "filter": "basic", "composition": "basi…
	// 401 { "error": { "code": "unauthorized", "message": "a valid bea…
}
