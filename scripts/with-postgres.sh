#!/usr/bin/env bash
# with-postgres.sh COMMAND [ARGS…]
#
# Runs COMMAND with a throwaway local PostgreSQL server and the environment
# variable PRIVOPT_TEST_PG_URL naming a database on it; the server and its
# data directory are removed afterwards, also when COMMAND fails or the script
# is interrupted. The tests of ledger/pgstore, the ledger concurrency tests,
# the service tests (gateway, cmd/privopt) and the in-database regression
# moments run against it.
#
# - The server comes from Debian's packages (postgresql, any major version
#   under /usr/lib/postgresql, or initdb on PATH). When none is installed and
#   the script runs as root with apt-get, it installs the package
#   (idempotent: nothing is installed when initdb is found).
# - PostgreSQL refuses to run as root: as root the server runs as the OS user
#   "postgres" (created by the package) through runuser; otherwise as the
#   calling user.
# - The data directory lives in a fresh temporary folder; the server listens
#   on a Unix socket in that folder only (no TCP port, nothing to collide
#   with), with trust authentication for the socket.
# - When PRIVOPT_TEST_PG_URL is already set, the script only runs COMMAND.
# - When the server cannot be started: with CI set the script fails; without
#   CI it prints why and runs COMMAND without the variable (the PostgreSQL
#   tests then skip, naming the variable).
set -euo pipefail

if [ "$#" -eq 0 ]; then
	echo "usage: $0 COMMAND [ARGS...]" >&2
	exit 2
fi
if [ -n "${PRIVOPT_TEST_PG_URL:-}" ]; then
	exec "$@"
fi

fail_or_skip() {
	local why=$1
	shift
	if [ -n "${CI:-}" ]; then
		echo "with-postgres: $why (CI is set: failing)" >&2
		exit 1
	fi
	echo "with-postgres: $why; running without PostgreSQL (its tests skip)" >&2
	exec "$@"
}

find_bin() {
	if command -v initdb >/dev/null 2>&1; then
		dirname "$(command -v initdb)"
		return
	fi
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
	if [ -n "$d" ] && [ -x "$d/initdb" ]; then
		echo "$d"
	fi
}

PGBIN=$(find_bin)
if [ -z "$PGBIN" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "with-postgres: installing PostgreSQL (Debian package postgresql)" >&2
	export DEBIAN_FRONTEND=noninteractive
	{ apt-get update -qq && apt-get install -y -qq postgresql >/dev/null; } ||
		echo "with-postgres: apt-get install postgresql failed" >&2
	PGBIN=$(find_bin)
fi
if [ -z "$PGBIN" ]; then
	fail_or_skip "no PostgreSQL server binaries (initdb) found" "$@"
fi

RUNAS=()
if [ "$(id -u)" = 0 ]; then
	if ! id postgres >/dev/null 2>&1; then
		fail_or_skip "running as root and there is no OS user 'postgres' to run the server" "$@"
	fi
	RUNUSER=$(command -v runuser || echo /usr/sbin/runuser)
	RUNAS=("$RUNUSER" -u postgres --)
fi

# As root the server runs as "postgres", which must reach the folder: /tmp
# (a private TMPDIR such as /root/tmp is not traversable by other users).
BASE=${TMPDIR:-/tmp}
if [ "${#RUNAS[@]}" -gt 0 ]; then
	BASE=/tmp
fi
TMP=$(mktemp -d "$BASE/privopt-pg.XXXXXX")
chmod 755 "$TMP"
mkdir -p "$TMP/data" "$TMP/sock"
if [ "${#RUNAS[@]}" -gt 0 ]; then
	chown postgres "$TMP/data" "$TMP/sock"
fi

cleanup() {
	"${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$TMP/data" -m immediate -w stop >/dev/null 2>&1 || true
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! "${RUNAS[@]}" "$PGBIN/initdb" -D "$TMP/data" -U privopt -A trust -E UTF8 --no-sync >"$TMP/initdb.log" 2>&1; then
	cat "$TMP/initdb.log" >&2
	cleanup
	trap - EXIT
	fail_or_skip "initdb failed" "$@"
fi
if ! "${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$TMP/data" -l "$TMP/data/server.log" -w -t 60 \
	-o "-c listen_addresses='' -k $TMP/sock -c max_connections=200 -c fsync=on" start >/dev/null; then
	cat "$TMP/data/server.log" >&2 || true
	cleanup
	trap - EXIT
	fail_or_skip "pg_ctl start failed" "$@"
fi

export PRIVOPT_TEST_PG_URL="postgres://privopt@/postgres?host=$TMP/sock&sslmode=disable"
echo "with-postgres: PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on socket $TMP/sock; PRIVOPT_TEST_PG_URL set" >&2
set +e
"$@"
rc=$?
set -e
exit $rc
