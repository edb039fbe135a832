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
//	POST /v1/opf/plans                  create a public OPF plan (optionally saved under DIR)
//	POST /v1/opf/plans/verify           rebuild a saved plan on the case (422 plan_mismatch)
//	POST /v1/opf/releases               private OPF cost release(s), from plan fields or a saved plan
//	POST /v1/regress/releases           private regression weights
//
// Every request but the first two needs Authorization: Bearer TOKEN, a token
// of TOKENS.json ({TOKEN: {name, role: admin|analyst, datasets: [NAME…]}}).
// An analyst releases on, and reads the budgets of, the datasets granted to
// it; an admin on every dataset, and may create budgets and read audit logs.
// No endpoint returns private diagnostics.
//
// Errors are {"error": {"code", "message"}}: 401 unauthorized, 403
// forbidden (dataset not granted), 409 budget_exceeded (nothing drawn) /
// plan_exists, 400 malformed_json / invalid_request / file_not_found, 413
// body_too_large, 422 plan_mismatch (a saved plan that does not rebuild on
// the case; the message names the first differing field), 404
// unknown_dataset / not_found, 501 not_implemented, 503 overloaded, 504
// timeout, 500 internal (whose message never carries the cause, which may
// depend on private data).
//
// Plans. POST /v1/opf/plans takes the plan-shaping fields of a release
// (dataset, case, domain, epsilon, delta, alpha, noise, method; no loads) and
// answers {"plan", "plan_file"} (opfrelease.PlanFile); with "save" the plan
// file is written under DIR (a new name ending in .json, never replacing
// another file). POST /v1/opf/plans/verify takes the case and either
// "plan_file" (the JSON) or "plan" (a saved file's name) and answers
// {"verified": true, "plan"}. POST /v1/opf/releases takes "plan" (a saved
// file's name) instead of the plan-shaping fields. All three read only
// public inputs for the plan: the case's network without its loads and the
// public domain.
//
// Batches. When the dataset's budget uses the PLD-batch composition
// ("pld-batch(delta=D)"), the load columns of one OPF release request are a
// batch fixed in advance and are charged once, in one ledger transaction,
// before any noise (ReleaseColumns; the answer's "batch" states the cost and
// composition); otherwise each column is spent just before its release.
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
