// Package gateway is `privopt serve`: an HTTP JSON service that holds the
// private inputs (files under a data directory) and a privacy ledger, and
// exposes only what may be published — releases and budgets.
//
// Endpoints (OpenAPI document in openapi.json, served at /openapi.json):
//
//	GET  /healthz                       liveness (no token)
//	GET  /openapi.json                  the document (no token)
//	GET  /v1/budgets/{dataset}          budget, composition, spent, remaining
//	GET  /v1/budgets/{dataset}/audit    verified audit log (admin)
//	POST /v1/budgets                    create a budget (admin)
//	POST /v1/opf/releases               private OPF cost release(s)
//	POST /v1/regress/releases           private regression weights
//
// Every request but the first two needs Authorization: Bearer TOKEN, a token
// of TOKENS.json ({TOKEN: {name, role: admin|analyst, datasets: [NAME…]}}).
// An analyst releases on, and reads the budgets of, the datasets granted to
// it; an admin on every dataset, and may create budgets and read audit logs.
// No endpoint returns private diagnostics.
//
// Errors are {"error": {"code", "message"}}: 401 unauthorized, 403
// forbidden (dataset not granted), 409 budget_exceeded (nothing drawn), 400
// malformed_json / invalid_request / file_not_found, 413 body_too_large, 404
// unknown_dataset / not_found, 503 overloaded, 504 timeout, 500 internal
// (whose message never carries the cause, which may depend on private data).
//
// Limits: request bodies (Config.MaxBody), releases computed at once
// (Config.MaxConcurrent, the rest wait until their deadline) and the time
// of one request (Config.Timeout). Serve shuts down gracefully: no new
// connections, requests in flight finish. A release spends in the ledger
// (committed and synced) before its noise is drawn and answers only after,
// so neither a graceful shutdown nor a SIGKILL loses a recorded spend or lets
// out a release without one.
//
// The release code sits behind the Releaser interface; Adapter (adapter.go)
// implements it over the current opfrelease and learn APIs.
package gateway
