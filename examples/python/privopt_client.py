#!/usr/bin/env python3
"""A client of `privopt serve` using only the Python standard library.

It creates a public release plan once (saved in the service's data
directory; an existing saved plan is verified and reused), releases a day of
hourly DC-OPF costs on a case held by the service with that plan, a private
regression, and then keeps releasing until the dataset's budget is
exhausted, handling the 409 budget_exceeded answer.

    python3 privopt_client.py --url http://127.0.0.1:8080 --token TOKEN \
        --dataset grid-2026 --case pglib_opf_case14_ieee.m --data rows.csv --target y

The case and the CSV are file names inside the service's data directory: the
private inputs never leave the service, only the released values come back.
Every answer is JSON; errors are {"error": {"code", "message"}}.
"""

import argparse
import json
import sys
import urllib.error
import urllib.request


class PrivoptError(Exception):
    """An error answer of the service: HTTP status, code and message."""

    def __init__(self, status, code, message):
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


class Client:
    """Minimal client: one method per endpoint used here."""

    def __init__(self, url, token, timeout=120):
        self.url, self.token, self.timeout = url.rstrip("/"), token, timeout

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Authorization", "Bearer " + self.token)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.load(resp)
        except urllib.error.HTTPError as e:
            try:
                err = json.load(e)["error"]
            except (ValueError, KeyError):
                raise PrivoptError(e.code, "http", e.reason) from None
            raise PrivoptError(e.code, err["code"], err["message"]) from None

    def health(self):
        return self._call("GET", "/healthz")

    def budget(self, dataset):
        return self._call("GET", "/v1/budgets/" + dataset)

    def create_plan(self, **fields):
        return self._call("POST", "/v1/opf/plans", fields)

    def verify_plan(self, **fields):
        return self._call("POST", "/v1/opf/plans/verify", fields)

    def opf_release(self, **fields):
        return self._call("POST", "/v1/opf/releases", fields)

    def regress_release(self, **fields):
        return self._call("POST", "/v1/regress/releases", fields)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--case", required=True, help="case file in the service's data directory")
    ap.add_argument("--data", required=True, help="regression CSV in the service's data directory")
    ap.add_argument("--target", required=True)
    ap.add_argument("--epsilon", type=float, default=0.1, help="ε of each hourly release (the plan's)")
    ap.add_argument("--plan", help="plan file name in the data directory (default plan-DATASET.json)")
    ap.add_argument("--loads", help="LOADS.csv in the data directory: release all its columns in one request")
    ap.add_argument("--max-extra", type=int, default=100, help="releases to try after the day before giving up")
    args = ap.parse_args()

    c = Client(args.url, args.token)
    print(json.dumps({"health": c.health()["status"]}))
    b = c.budget(args.dataset)
    print(json.dumps({"budget": b["budget"], "composition": b["composition"], "remaining": b["remaining"]}))

    # The plan: created once from public inputs only (no private value is
    # read, nothing is spent) and saved in the data directory. If a plan of
    # that name exists already (409 plan_exists), verify it and reuse it.
    plan_name = args.plan or f"plan-{args.dataset}.json"
    try:
        made = c.create_plan(dataset=args.dataset, case=args.case, epsilon=args.epsilon, save=plan_name)
        plan = made["plan"]
        print(json.dumps({"plan": plan_name, "created": True, "guarantee": plan["guarantee"]}))
    except PrivoptError as e:
        if e.code != "plan_exists":
            raise
        plan = c.verify_plan(dataset=args.dataset, case=args.case, plan=plan_name)["plan"]
        print(json.dumps({"plan": plan_name, "verified": True, "guarantee": plan["guarantee"]}))

    # A day of hourly cost releases under the saved plan: each request names
    # the plan instead of its parameters, and the service refuses it (422
    # plan_mismatch) unless the plan rebuilds byte for byte. With
    # --loads LOADS.csv (24 columns in the data directory) one request
    # releases the whole day; a dataset whose budget uses pld-batch
    # composition is then charged the day's PLD cost once.
    if args.loads:
        out = c.opf_release(dataset=args.dataset, case=args.case, plan=plan_name, loads=args.loads, label="day")
        for hour, rel in enumerate(out["releases"]):
            print(json.dumps({"hour": hour, "label": rel["label"], "released_value": rel["released_value"], "unit": out["plan"]["unit"]}))
        if "batch" in out:
            print(json.dumps({"batch": out["batch"]}))
    else:
        for hour in range(24):
            out = c.opf_release(dataset=args.dataset, case=args.case, plan=plan_name, label=f"h{hour:02d}")
            rel = out["releases"][0]
            print(json.dumps({"hour": hour, "released_value": rel["released_value"], "unit": out["plan"]["unit"]}))

    # A private regression on the CSV held by the service.
    reg = c.regress_release(dataset=args.dataset, data=args.data, target=args.target, model="ridge",
                            epsilon=0.5, noise="laplace", label="daily regression")
    print(json.dumps({"regression": reg["weights"], "guarantee": reg["guarantee"]["statement"]}))

    # Keep releasing until the budget refuses: a 409 budget_exceeded answer
    # means nothing was drawn and nothing was spent.
    extra = 0
    while extra < args.max_extra:
        try:
            c.opf_release(dataset=args.dataset, case=args.case, plan=plan_name, label=f"extra {extra}")
            extra += 1
        except PrivoptError as e:
            if e.code != "budget_exceeded":
                raise
            print(json.dumps({"exhausted_after_extra": extra, "status": e.status, "code": e.code}))
            break
    b = c.budget(args.dataset)
    print(json.dumps({"releases": b["count"], "spent": b["spent"], "remaining": b["remaining"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
