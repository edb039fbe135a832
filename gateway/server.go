package gateway

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/opfrelease"
)

// OpenAPI is the service's OpenAPI 3.1 document, served at /openapi.json.
//
//go:embed openapi.json
var OpenAPI []byte

// ErrBadRequest is wrapped by errors a Releaser attributes to the request
// (HTTP 400, code invalid_request); their text is returned to the client.
var ErrBadRequest = errors.New("gateway: invalid request")

// Config configures a Server.
type Config struct {
	Ledger   *ledger.Ledger // the budgets (required)
	Tokens   Tokens         // bearer tokens (required)
	DataDir  string         // directory holding the private inputs requests name (required)
	Releaser Releaser       // nil: Adapter{}
	// MaxBody is the largest request body in bytes (0: 64 KiB); larger
	// bodies get 413 body_too_large.
	MaxBody int64
	// MaxPlanBody is the largest body of POST /v1/opf/plans/verify, which
	// may carry a whole plan file with its certificate (0: 4 MiB).
	MaxPlanBody int64
	// MaxConcurrent is the number of releases computed at once (0: 4); a
	// request waits for a slot until its deadline (then 503 overloaded).
	MaxConcurrent int
	// Timeout bounds one request (0: 2 minutes; then 504 timeout).
	Timeout time.Duration
	// Log receives one line per request (method, path, status, grant name,
	// duration; never bodies). nil: log.Default().
	Log *log.Logger
}

// Server is the HTTP JSON service; it implements http.Handler.
type Server struct {
	cfg  Config
	dir  string
	sem  chan struct{}
	mux  *http.ServeMux
	logf func(string, ...any)
}

// New validates cfg and returns the server.
func New(cfg Config) (*Server, error) {
	if cfg.Ledger == nil || len(cfg.Tokens) == 0 {
		return nil, fmt.Errorf("gateway: a ledger and at least one token are required")
	}
	dir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("gateway: data dir: %w", err)
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return nil, fmt.Errorf("gateway: data dir: %w", err)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("gateway: data dir %s is not a directory", cfg.DataDir)
	}
	if cfg.Releaser == nil {
		cfg.Releaser = Adapter{}
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 64 << 10
	}
	if cfg.MaxPlanBody <= 0 {
		cfg.MaxPlanBody = 4 << 20
	}
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = 4
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Minute
	}
	lg := cfg.Log
	if lg == nil {
		lg = log.Default()
	}
	s := &Server{cfg: cfg, dir: dir, sem: make(chan struct{}, cfg.MaxConcurrent), mux: http.NewServeMux(), logf: lg.Printf}
	s.route("GET /healthz", false, s.healthz)
	s.route("GET /openapi.json", false, s.openapi)
	s.route("GET /v1/budgets/{dataset}", true, s.budget)
	s.route("GET /v1/budgets/{dataset}/audit", true, s.audit)
	s.route("POST /v1/budgets", true, s.createBudget)
	s.route("POST /v1/opf/plans", true, s.createPlan)
	s.route("POST /v1/opf/plans/verify", true, s.verifyPlan)
	s.route("POST /v1/opf/releases", true, s.opf)
	s.route("POST /v1/regress/releases", true, s.regress)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no endpoint %s %s (see /openapi.json)", r.Method, r.URL.Path))
	})
	return s, nil
}

// Routes lists the method and path pattern of every endpoint (the paths of
// the OpenAPI document).
func (s *Server) Routes() []string { return append([]string(nil), routes...) }

var routes []string

type handler func(w http.ResponseWriter, r *http.Request, g *Grant) (int, any, error)

func (s *Server) route(pattern string, auth bool, h handler) {
	if !contains(routes, pattern) {
		routes = append(routes, pattern)
	}
	method, path, _ := strings.Cut(pattern, " ")
	s.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		status, who := 0, "-"
		defer func() {
			s.logf("gateway: %s %s %d %s %v", r.Method, r.URL.Path, status, who, time.Since(t0).Round(time.Microsecond))
		}()
		if r.Method != method {
			status = http.StatusMethodNotAllowed
			w.Header().Set("Allow", method)
			writeError(w, status, "method_not_allowed", fmt.Sprintf("%s takes %s, not %s", path, method, r.Method))
			return
		}
		var g *Grant
		if auth {
			tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if g = s.cfg.Tokens.lookup(strings.TrimSpace(tok)); !ok || g == nil {
				status = http.StatusUnauthorized
				w.Header().Set("WWW-Authenticate", `Bearer realm="privopt"`)
				writeError(w, status, "unauthorized", "a valid bearer token is required (Authorization: Bearer TOKEN)")
				return
			}
			who = g.Name
		}
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
		defer cancel()
		st, body, err := h(w, r.WithContext(ctx), g)
		if err != nil {
			status = s.writeErr(w, err)
			return
		}
		status = st
		writeJSON(w, st, body)
	})
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Serve serves on ln until ctx is done, then shuts down gracefully: it
// stops accepting, lets the requests in flight finish (each spend is
// committed before its noise is drawn, so a recorded spend is never lost and
// no release leaves without one), and returns after grace at the latest.
func (s *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: s.cfg.Timeout + 30*time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 16 << 10}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := hs.Shutdown(sctx)
	<-done
	return err
}

// apiError is an error with an HTTP status and a code.
type apiError struct {
	status  int
	code    string
	message string
}

func (e *apiError) Error() string { return e.message }

func fail(status int, code, format string, args ...any) error {
	return &apiError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

// writeErr maps an error to the documented status and code. Messages of
// unexpected errors are not returned (they may come from deep in a release
// path); they are logged.
func (s *Server) writeErr(w http.ResponseWriter, err error) int {
	var ae *apiError
	var be *ledger.BudgetError
	switch {
	case errors.As(err, &ae):
		writeError(w, ae.status, ae.code, ae.message)
		return ae.status
	case errors.As(err, &be):
		writeError(w, http.StatusConflict, "budget_exceeded", be.Error())
		return http.StatusConflict
	case errors.Is(err, ledger.ErrUnknownDataset):
		writeError(w, http.StatusNotFound, "unknown_dataset", "the dataset has no budget (an admin creates it: POST /v1/budgets or privopt ledger init)")
		return http.StatusNotFound
	case errors.Is(err, ErrPlanMismatch):
		writeError(w, http.StatusUnprocessableEntity, "plan_mismatch", err.Error())
		return http.StatusUnprocessableEntity
	case errors.Is(err, ErrBadRequest), errors.Is(err, ledger.ErrInvalid), errors.Is(err, accounting.ErrInvalid):
		writeError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return http.StatusBadRequest
	case errors.Is(err, context.DeadlineExceeded):
		writeError(w, http.StatusGatewayTimeout, "timeout", fmt.Sprintf("the request took longer than %v", s.cfg.Timeout))
		return http.StatusGatewayTimeout
	}
	s.logf("gateway: internal error: %v", err)
	writeError(w, http.StatusInternalServerError, "internal", "the release failed inside the service (details in the service log); if a spend was recorded it stays recorded")
	return http.StatusInternalServerError
}

type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	var b errorBody
	b.Error.Code, b.Error.Message = code, msg
	writeJSON(w, status, b)
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if raw, ok := body.(json.RawMessage); ok {
		w.Write(raw)
		w.Write([]byte("\n"))
		return
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(body)
}

// decode reads a JSON body of at most MaxBody bytes into v: unknown fields
// and trailing data are refused.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) error {
	return s.decodeLimit(w, r, v, s.cfg.MaxBody)
}

func (s *Server) decodeLimit(w http.ResponseWriter, r *http.Request, v any, limit int64) error {
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("trailing data after the JSON object")
	}
	if err == nil {
		if _, e := io.Copy(io.Discard, r.Body); e != nil {
			err = e
		}
	}
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return fail(http.StatusRequestEntityTooLarge, "body_too_large", "the request body exceeds %d bytes", limit)
	case err != nil:
		return fail(http.StatusBadRequest, "malformed_json", "the request body is not the expected JSON object: %v", err)
	}
	return nil
}

// file resolves a request's file name inside the data directory: relative,
// no "..", and inside the directory after resolving symbolic links.
func (s *Server) file(field, name string, required bool) (string, error) {
	if name == "" {
		if required {
			return "", fail(http.StatusBadRequest, "invalid_request", "%s is required (a file name relative to the data directory)", field)
		}
		return "", nil
	}
	if filepath.IsAbs(name) || !filepath.IsLocal(name) {
		return "", fail(http.StatusBadRequest, "invalid_request", "%s %q must be a file name relative to the data directory, without ..", field, name)
	}
	p, err := filepath.EvalSymlinks(filepath.Join(s.dir, name))
	if err != nil {
		return "", fail(http.StatusBadRequest, "file_not_found", "%s %q is not a file in the data directory", field, name)
	}
	if rel, err := filepath.Rel(s.dir, p); err != nil || !filepath.IsLocal(rel) {
		return "", fail(http.StatusBadRequest, "invalid_request", "%s %q resolves outside the data directory", field, name)
	}
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return "", fail(http.StatusBadRequest, "file_not_found", "%s %q is not a regular file in the data directory", field, name)
	}
	return p, nil
}

func (s *Server) grant(g *Grant, dataset string) error {
	if strings.TrimSpace(dataset) == "" {
		return fail(http.StatusBadRequest, "invalid_request", "dataset is required")
	}
	if !g.allows(dataset) {
		return fail(http.StatusForbidden, "forbidden", "dataset %q is not granted to %s", dataset, g.Name)
	}
	return nil
}

// slot takes one of the MaxConcurrent release slots until the request's
// deadline.
func (s *Server) slot(ctx context.Context) (func(), error) {
	select {
	case s.sem <- struct{}{}:
		return func() { <-s.sem }, nil
	case <-ctx.Done():
		return nil, fail(http.StatusServiceUnavailable, "overloaded", "all %d release slots stayed busy until the request's deadline", s.cfg.MaxConcurrent)
	}
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request, _ *Grant) (int, any, error) {
	return http.StatusOK, map[string]string{"status": "ok"}, nil
}

func (s *Server) openapi(w http.ResponseWriter, r *http.Request, _ *Grant) (int, any, error) {
	return http.StatusOK, json.RawMessage(OpenAPI), nil
}

// budgetAnswer is ledger.Status without its releases: the answer of GET
// /v1/budgets/{dataset} and POST /v1/budgets.
type budgetAnswer struct {
	ledger.Status
	Releases *struct{} `json:"releases,omitempty"` // shadows Status.Releases: never sent
}

func (s *Server) budget(w http.ResponseWriter, r *http.Request, g *Grant) (int, any, error) {
	ds := r.PathValue("dataset")
	if err := s.grant(g, ds); err != nil {
		return 0, nil, err
	}
	st, err := s.cfg.Ledger.Budget(r.Context(), ds)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, budgetAnswer{Status: st}, nil
}

func (s *Server) audit(w http.ResponseWriter, r *http.Request, g *Grant) (int, any, error) {
	ds := r.PathValue("dataset")
	if g.Role != RoleAdmin {
		return 0, nil, fail(http.StatusForbidden, "forbidden", "audit logs are for the admin role")
	}
	st, err := s.cfg.Ledger.Status(r.Context(), ds)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, st, nil
}

// CreateBudget is the body of POST /v1/budgets.
type CreateBudget struct {
	Dataset string  `json:"dataset"`
	Epsilon float64 `json:"epsilon"`
	Delta   float64 `json:"delta,omitempty"`
	Gamma   float64 `json:"gamma,omitempty"`
	Filter  string  `json:"filter,omitempty"` // basic (default), gdp, rdp(alpha=A), pld-batch(delta=D)
}

func (s *Server) createBudget(w http.ResponseWriter, r *http.Request, g *Grant) (int, any, error) {
	if g.Role != RoleAdmin {
		return 0, nil, fail(http.StatusForbidden, "forbidden", "creating budgets is for the admin role")
	}
	var req CreateBudget
	if err := s.decode(w, r, &req); err != nil {
		return 0, nil, err
	}
	if req.Filter == "" {
		req.Filter = "basic"
	}
	b := accounting.Budget{Epsilon: req.Epsilon, Delta: req.Delta, Gamma: req.Gamma}
	if err := s.cfg.Ledger.InitFilter(r.Context(), req.Dataset, b, req.Filter); err != nil {
		if errors.Is(err, ledger.ErrDatasetExists) {
			return 0, nil, fail(http.StatusConflict, "dataset_exists", "%v", err)
		}
		return 0, nil, err
	}
	st, err := s.cfg.Ledger.Budget(r.Context(), req.Dataset)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, budgetAnswer{Status: st}, nil
}

func (s *Server) opf(w http.ResponseWriter, r *http.Request, g *Grant) (int, any, error) {
	var req OPFRequest
	if err := s.decode(w, r, &req); err != nil {
		return 0, nil, err
	}
	if err := s.grant(g, req.Dataset); err != nil {
		return 0, nil, err
	}
	var f OPFFiles
	var err error
	if f.Case, err = s.file("case", req.Case, true); err != nil {
		return 0, nil, err
	}
	if f.Domain, err = s.file("domain", req.Domain, false); err != nil {
		return 0, nil, err
	}
	if f.Loads, err = s.file("loads", req.Loads, false); err != nil {
		return 0, nil, err
	}
	if req.Plan != "" {
		var given []string
		for _, c := range []struct {
			name string
			set  bool
		}{{"domain", req.Domain != ""}, {"epsilon", req.Epsilon != 0}, {"delta", req.Delta != 0}, {"alpha", req.Alpha != 0},
			{"noise", req.Noise != ""}, {"method", req.Method != ""}} {
			if c.set {
				given = append(given, c.name)
			}
		}
		if len(given) > 0 {
			return 0, nil, fail(http.StatusBadRequest, "invalid_request", "plan %q fixes the plan: %s cannot be given with it", req.Plan, strings.Join(given, ", "))
		}
		if f.Plan, err = s.file("plan", req.Plan, true); err != nil {
			return 0, nil, err
		}
	}
	release, err := s.slot(r.Context())
	if err != nil {
		return 0, nil, err
	}
	defer release()
	led := s.cfg.Ledger.WithLabels(ledger.Labels{Case: filepath.Base(req.Case), UserLabel: req.Label})
	out, err := s.cfg.Releaser.OPF(r.Context(), led, req, f)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, out, nil
}

func (s *Server) regress(w http.ResponseWriter, r *http.Request, g *Grant) (int, any, error) {
	var req RegressRequest
	if err := s.decode(w, r, &req); err != nil {
		return 0, nil, err
	}
	if err := s.grant(g, req.Dataset); err != nil {
		return 0, nil, err
	}
	var f RegressFiles
	var err error
	if f.Data, err = s.file("data", req.Data, true); err != nil {
		return 0, nil, err
	}
	release, err := s.slot(r.Context())
	if err != nil {
		return 0, nil, err
	}
	defer release()
	led := s.cfg.Ledger.WithLabels(ledger.Labels{Case: filepath.Base(req.Data), UserLabel: req.Label})
	out, err := s.cfg.Releaser.Regress(r.Context(), led, req, f)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, out, nil
}

// planCase returns the Planner and the request's case file resolved.
func (s *Server) planCase(name string) (Planner, OPFFiles, error) {
	p, ok := s.cfg.Releaser.(Planner)
	if !ok {
		return nil, OPFFiles{}, fail(http.StatusNotImplemented, "not_implemented", "this service's releaser does not create or verify plans")
	}
	var f OPFFiles
	var err error
	f.Case, err = s.file("case", name, true)
	return p, f, err
}

// planAnswer is the answer of POST /v1/opf/plans.
type planAnswer struct {
	Plan     *opfrelease.Plan     `json:"plan"`
	PlanFile *opfrelease.PlanFile `json:"plan_file"`
	Saved    string               `json:"saved,omitempty"` // the file name under DIR the plan file was written to
}

func (s *Server) createPlan(w http.ResponseWriter, r *http.Request, g *Grant) (int, any, error) {
	var req PlanRequest
	if err := s.decode(w, r, &req); err != nil {
		return 0, nil, err
	}
	if err := s.grant(g, req.Dataset); err != nil {
		return 0, nil, err
	}
	pl, f, err := s.planCase(req.Case)
	if err != nil {
		return 0, nil, err
	}
	if f.Domain, err = s.file("domain", req.Domain, false); err != nil {
		return 0, nil, err
	}
	var save string
	if req.Save != "" {
		if save, err = s.newFile("save", req.Save); err != nil {
			return 0, nil, err
		}
	}
	release, err := s.slot(r.Context())
	if err != nil {
		return 0, nil, err
	}
	defer release()
	plan, pf, err := pl.CreatePlan(r.Context(), req, f)
	if err != nil {
		return 0, nil, err
	}
	out := planAnswer{Plan: plan, PlanFile: pf}
	if save != "" {
		var buf bytes.Buffer
		if err := pf.Write(&buf); err != nil {
			return 0, nil, err
		}
		if err := writeNew(save, buf.Bytes()); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return 0, nil, fail(http.StatusConflict, "plan_exists", "save %q: a different file of that name is in the data directory", req.Save)
			}
			return 0, nil, err
		}
		out.Saved = req.Save
	}
	return http.StatusOK, out, nil
}

// verifyAnswer is the answer of POST /v1/opf/plans/verify.
type verifyAnswer struct {
	Verified bool             `json:"verified"`
	Plan     *opfrelease.Plan `json:"plan"`
}

func (s *Server) verifyPlan(w http.ResponseWriter, r *http.Request, g *Grant) (int, any, error) {
	var req VerifyPlanRequest
	if err := s.decodeLimit(w, r, &req, s.cfg.MaxPlanBody); err != nil {
		return 0, nil, err
	}
	if req.Dataset != "" {
		if err := s.grant(g, req.Dataset); err != nil {
			return 0, nil, err
		}
	}
	pl, f, err := s.planCase(req.Case)
	if err != nil {
		return 0, nil, err
	}
	var pf *opfrelease.PlanFile
	switch {
	case (len(req.PlanFile) > 0) == (req.Plan != ""):
		return 0, nil, fail(http.StatusBadRequest, "invalid_request", "give exactly one of plan_file (the plan file's JSON) and plan (a saved plan file's name)")
	case req.Plan != "":
		if f.Plan, err = s.file("plan", req.Plan, true); err != nil {
			return 0, nil, err
		}
		fh, err := os.Open(f.Plan)
		if err != nil {
			return 0, nil, fail(http.StatusBadRequest, "file_not_found", "plan %q cannot be opened", req.Plan)
		}
		pf, err = readPlanFile(fmt.Sprintf("%q", req.Plan), fh)
		fh.Close()
		if err != nil {
			return 0, nil, err
		}
	default:
		if pf, err = readPlanFile("plan_file", bytes.NewReader(req.PlanFile)); err != nil {
			return 0, nil, err
		}
	}
	release, err := s.slot(r.Context())
	if err != nil {
		return 0, nil, err
	}
	defer release()
	plan, err := pl.VerifyPlan(r.Context(), pf, f)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, verifyAnswer{Verified: true, Plan: plan}, nil
}

// newFile resolves the name of a file to create in the data directory:
// relative, without "..", ending in .json, its directory inside the data
// directory after resolving symbolic links.
func (s *Server) newFile(field, name string) (string, error) {
	if filepath.IsAbs(name) || !filepath.IsLocal(name) || !strings.HasSuffix(name, ".json") {
		return "", fail(http.StatusBadRequest, "invalid_request", "%s %q must be a file name ending in .json relative to the data directory, without ..", field, name)
	}
	dir, err := filepath.EvalSymlinks(filepath.Join(s.dir, filepath.Dir(name)))
	if err != nil {
		return "", fail(http.StatusBadRequest, "file_not_found", "%s %q: its directory is not in the data directory", field, name)
	}
	if rel, err := filepath.Rel(s.dir, dir); err != nil || !filepath.IsLocal(rel) {
		return "", fail(http.StatusBadRequest, "invalid_request", "%s %q resolves outside the data directory", field, name)
	}
	return filepath.Join(dir, filepath.Base(name)), nil
}

// writeNew writes data to path unless a file with other content is there
// (fs.ErrExist); the same content is accepted. The file appears whole (a
// temporary file renamed without replacing an existing one).
func writeNew(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil {
		if bytes.Equal(old, data) {
			return nil
		}
		return fs.ErrExist
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fs.ErrExist // a directory or an unreadable file: never replaced
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".plan-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	// Link fails if path exists: a concurrent writer is never overwritten.
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			if old, rerr := os.ReadFile(path); rerr == nil && bytes.Equal(old, data) {
				return nil
			}
		}
		return err
	}
	return nil
}
