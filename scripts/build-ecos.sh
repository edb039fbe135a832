#!/usr/bin/env bash
# Builds ECOS (the embedded conic solver of Domahidi, Chu and Boyd) from its C
# sources together with scripts/peers/ecos_solve.c, the driver that
# `go run ./bench/smallconic -ecos BINARY` runs as a peer. Optional: nothing in
# `make test` needs it.
#
#   scripts/build-ecos.sh ECOS_SOURCE_DIR [OUTPUT_BINARY]
#
# ECOS_SOURCE_DIR is a checkout of the public ECOS repository (embotech/ecos,
# measured with 2.0.10); ECOS's code is only compiled, never copied into this
# repository. The build happens in a temporary directory; OUTPUT_BINARY
# defaults to ./ecos_solve. ECOS's own flags (ecos.mk: -O2, long indices, the
# Ctrl-C handler on) are kept; its iteration printing stays compiled in
# (PRINTLEVEL 2 of glblopts.h) and is silenced by verbose = 0 per solve.
# libecos.a needs src/, include/ and external/ only (a checkout lacking
# test/'s large MPC headers builds the same).
set -euo pipefail

die() { printf 'build-ecos: ERROR: %s\n' "$*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: $0 ECOS_SOURCE_DIR [OUTPUT_BINARY]"
src=$(cd "$1" && pwd) || die "no directory $1"
out=${2:-./ecos_solve}
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$src/include/ecos.h" ] || die "$src has no include/ecos.h (not an ECOS checkout)"
command -v cc >/dev/null || die "no C compiler (cc)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src"/. "$tmp"/
cd "$tmp"
# ECOS's Makefile builds libecos.a (ECOS, its AMD and LDL) with its own flags
# (ecos.mk: -O2, long indices, the Ctrl-C handler on); the driver is compiled
# with the same defines.
make -s libecos.a >/dev/null 2>&1 || die "make libecos.a failed in $tmp"
cc -O2 -DLDL_LONG -DDLONG -DCTRLC=1 -I include -I external/SuiteSparse_config \
  "$here/peers/ecos_solve.c" libecos.a -lm -o ecos_solve || die "compiling ecos_solve.c failed"
cd - >/dev/null
cp "$tmp/ecos_solve" "$out"
printf 'build-ecos: built %s (ECOS %s)\n' "$out" \
  "$(sed -n 's/.*ECOS_VERSION ("\(.*\)").*/\1/p' "$src/include/ecos.h")"
