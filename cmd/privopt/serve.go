package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/privopt/privopt/gateway"
	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/ledger/pgstore"
)

func init() {
	register(command{name: "serve", summary: "HTTP JSON service: private releases and budgets over a data directory and a ledger", run: runServe})
}

const serveUsage = `Usage: privopt serve --addr HOST:PORT --ledger FILE|postgres://… --tokens TOKENS.json --data-dir DIR
       [--max-body BYTES] [--max-concurrent N] [--timeout D] [--grace D]

Serves the HTTP JSON API of package gateway (OpenAPI document at
/openapi.json): GET /healthz, GET /v1/budgets/{dataset}, GET
/v1/budgets/{dataset}/audit (admin), POST /v1/budgets (admin), POST
/v1/opf/releases, POST /v1/regress/releases. TOKENS.json maps each bearer
token to {"name": …, "role": "admin"|"analyst", "datasets": [NAME…]}. The
private inputs are files under DIR named by the requests; they never travel
in a response. Every release is spent in the ledger (a SQLite file that must
exist, or a PostgreSQL URL) before its noise is drawn. The address the
service listens on is printed as "listening on HOST:PORT" (port 0 picks a
free one). SIGTERM stops it gracefully: no new connections, requests in
flight finish within --grace. SIGINT (Ctrl-C) starts the same shutdown but,
as for every privopt command, exits within a second. Either way, and after
SIGKILL too, a recorded spend is never lost and no release is answered
without its spend; a request cut off may have spent without an answer.

Flags:
`

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), serveUsage)
		fs.PrintDefaults()
	}
	addr := fs.String("addr", "127.0.0.1:8080", "HOST:PORT to listen on")
	led := fs.String("ledger", "", "ledger FILE or postgres:// URL (required)")
	tokens := fs.String("tokens", "", "TOKENS.json (required)")
	dir := fs.String("data-dir", "", "directory of the private inputs requests name (required)")
	maxBody := fs.Int64("max-body", 64<<10, "largest request body in bytes")
	maxConc := fs.Int("max-concurrent", 4, "releases computed at once")
	timeout := fs.Duration("timeout", 2*time.Minute, "time limit of one request")
	grace := fs.Duration("grace", 30*time.Second, "time requests in flight get to finish at shutdown")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %v", fs.Args())
	}
	switch {
	case *led == "":
		return usagef("--ledger FILE|postgres://… is required")
	case *tokens == "":
		return usagef("--tokens TOKENS.json is required")
	case *dir == "":
		return usagef("--data-dir DIR is required")
	case *maxBody < 1 || *maxConc < 1 || *timeout <= 0 || *grace < 0:
		return usagef("--max-body %d, --max-concurrent %d, --timeout %v and --grace %v must be positive", *maxBody, *maxConc, *timeout, *grace)
	}
	tok, err := gateway.LoadTokens(*tokens)
	if err != nil {
		return usageError{err}
	}
	l, err := pgstore.OpenLedger(ctx, *led, ledger.Options{})
	if err != nil {
		return err
	}
	defer l.Close()
	srv, err := gateway.New(gateway.Config{Ledger: l, Tokens: tok, DataDir: *dir, MaxBody: *maxBody, MaxConcurrent: *maxConc,
		Timeout: *timeout, Log: log.New(stderr, "", log.LstdFlags)})
	if err != nil {
		return usageError{err}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "listening on %s\n", ln.Addr())
	if f, ok := stdout.(*os.File); ok {
		f.Sync()
	}
	sctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	return srv.Serve(sctx, ln, *grace)
}
