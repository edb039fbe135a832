#!/usr/bin/env bash
# Builds Clarabel (the interior-point conic solver of Goulart and Chen,
# oxfordcontrol/Clarabel.rs) with the driver scripts/peers/clarabel_solve.rs,
# which `go run ./bench/smallconic -clarabel BINARY` runs as a peer.
# Optional: nothing in `make test` needs it.
#
#   scripts/build-clarabel.sh [--sdp] CLARABEL_SOURCE_DIR DEPS_DIR [OUTPUT_BINARY]
#
# No crate registry is needed: every dependency is built from a checkout of
# its public repository, wired by [patch.crates-io] and built with
# `cargo build --offline`. DEPS_DIR holds one checkout per crate, named as
# below (measured with Clarabel 0.11.1, default features off, and these
# tags of the crates' repositories):
#
#   amd            rwl/amd_order 0.2.2 (commit 20e7285, untagged)
#   cfg-if         rust-lang/cfg-if v1.0.4
#   itertools      rust-itertools v0.11.0    either        rayon-rs/either 1.15.0
#   derive_builder colin-kiegel/rust-derive-builder v0.11.2 (a workspace)
#   darling        TedDriggs/darling v0.14.4 (a workspace)
#   ident_case     TedDriggs/ident_case 1.0.1 (commit bf0d863, untagged)
#   strsim         rapidfuzz/strsim-rs v0.10.1
#   fnv            servo/rust-fnv v1.0.7
#   enum_dispatch  a GitHub mirror of antonok/enum_dispatch (e.g. n8pjl/enum_dispatch) v0.3.13
#   once_cell      matklad/once_cell v1.21.3 lazy_static   rust-lang-nursery/lazy-static.rs 1.5.0
#   num-traits     rust-num/num-traits num-traits-0.2.19   autocfg cuviper/autocfg 1.5.0
#   thiserror      dtolnay/thiserror 1.0.69  syn2, syn1    dtolnay/syn 2.0.119, 1.0.109
#   quote          dtolnay/quote 1.0.46      proc-macro2   dtolnay/proc-macro2 1.0.107
#   unicode-ident  dtolnay/unicode-ident 1.0.24
#
# With --sdp, Clarabel's "sdp" feature is on (PSDTriangleConeT, the psd
# cones of the driver's file format) and DEPS_DIR must also hold
#
#   blas           blas-lapack-rs/blas 0.22.0 (commit a70e0d2)
#   blas-sys       blas-lapack-rs/blas-sys 0.7.1 (commit 14a766e)
#   lapack         blas-lapack-rs/lapack 0.19.0 (commit 0276f89)
#   lapack-sys     blas-lapack-rs/lapack-sys 0.14.0 (commit 9a514cf)
#   num-complex    rust-num/num-complex num-complex-0.4.5
#   libc           rust-lang/libc 0.2.189
#   indexmap       indexmap-rs/indexmap 2.9.0    equivalent  indexmap-rs/equivalent v1.0.2
#   hashbrown      rust-lang/hashbrown v0.15.5
#   blas-src       blas-lapack-rs/blas-src 0.11.1 (commit 7b24cb0)
#   lapack-src     blas-lapack-rs/lapack-src 0.11.0 (commit 425082b)
#
# blas-src and lapack-src are turned on without any of their source
# features (Clarabel's implicit features of the same names), so they link
# nothing; the driver links the system's BLAS and LAPACK (libblas.so.3 and
# liblapack.so.3, measured with the reference implementation 3.11).
#
# The build happens in a temporary copy; two edits are made to that copy
# only: the wasm-only dependency section of Clarabel's Cargo.toml is dropped
# (cargo resolves every target's dependencies, and web-time is not
# available), and the JsonError variant of SolverError is put under the
# serde feature (without that feature Clarabel 0.11.1 does not compile).
# Lints are capped at warnings (the crates' `deny(warnings)` is meant for
# their own CI, and registry builds cap them the same way). No code of these
# repositories is copied into this repository.
set -euo pipefail

die() { printf 'build-clarabel: ERROR: %s\n' "$*" >&2; exit 1; }

sdp=0
if [ "${1:-}" = --sdp ]; then sdp=1; shift; fi
[ $# -ge 2 ] || die "usage: $0 [--sdp] CLARABEL_SOURCE_DIR DEPS_DIR [OUTPUT_BINARY]"
src=$(cd "$1" && pwd) || die "no directory $1"
deps=$(cd "$2" && pwd) || die "no directory $2"
out=${3:-./clarabel_solve}
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$src/Cargo.toml" ] && grep -q '^name = "clarabel"' "$src/Cargo.toml" || die "$src is not a Clarabel.rs checkout"
command -v cargo >/dev/null || die "no cargo"

declare -A path=(
  [amd]=amd [cfg-if]=cfg-if [itertools]=itertools [either]=either
  [derive_builder]=derive_builder/derive_builder
  [derive_builder_core]=derive_builder/derive_builder_core
  [derive_builder_macro]=derive_builder/derive_builder_macro
  [darling]=darling [darling_core]=darling/core [darling_macro]=darling/macro
  [ident_case]=ident_case [strsim]=strsim [fnv]=fnv [enum_dispatch]=enum_dispatch
  [once_cell]=once_cell [lazy_static]=lazy_static [num-traits]=num-traits
  [autocfg]=autocfg [thiserror]=thiserror [thiserror-impl]=thiserror/impl
  [syn]=syn2 [quote]=quote [proc-macro2]=proc-macro2 [unicode-ident]=unicode-ident
)
if [ $sdp = 1 ]; then
  path+=([blas]=blas [blas-sys]=blas-sys [lapack]=lapack [lapack-sys]=lapack-sys
    [num-complex]=num-complex [libc]=libc [indexmap]=indexmap [equivalent]=equivalent
    [hashbrown]=hashbrown [blas-src]=blas-src [lapack-src]=lapack-src)
fi
for c in "${!path[@]}" syn1; do
  p=${path[$c]:-syn1}
  [ -f "$deps/$p/Cargo.toml" ] || die "$deps/$p/Cargo.toml missing (crate $c)"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src" "$tmp/clarabel"
python3 - "$tmp/clarabel" <<'PY' || die "editing the temporary copy of Clarabel failed"
import re, sys
root = sys.argv[1]
toml = root + "/Cargo.toml"
s = open(toml).read()
s = re.sub(r"\[target\.'cfg\(target_family = \"wasm\"\)'\.(dev-)?dependencies\]\n[^\[]*", "", s)
open(toml, "w").write(s)
rs = root + "/src/solver/implementations/default/solver.rs"
s = open(rs).read()
if "JsonError(#[from] serde_json::Error)" in s and '#[cfg(feature = "serde")]\n    #[error("JSON error' not in s:
    s = s.replace('    #[error("JSON error: {0}")]', '    #[cfg(feature = "serde")]\n    #[error("JSON error: {0}")]')
open(rs, "w").write(s)
PY
mkdir -p "$tmp/drv/src"
cp "$here/peers/clarabel_solve.rs" "$tmp/drv/src/main.rs"
{
  printf '[package]\nname = "clarabel_solve"\nversion = "0.1.0"\nedition = "2021"\n\n'
  printf '[dependencies]\nclarabel = { path = "%s", default-features = false }\n\n' "$tmp/clarabel"
  # only with --sdp: cargo resolves every feature's dependencies of the driver
  if [ $sdp = 1 ]; then
    printf '[features]\nsdp = ["clarabel/sdp", "clarabel/blas-src", "clarabel/lapack-src"]\n\n'
  fi
  printf '[profile.release]\nopt-level = 3\n\n[patch.crates-io]\n'
  for c in "${!path[@]}"; do printf '%s = { path = "%s" }\n' "$c" "$deps/${path[$c]}"; done
  printf 'syn1 = { path = "%s", package = "syn" }\n' "$deps/syn1"
} > "$tmp/drv/Cargo.toml"
cd "$tmp/drv"
export CARGO_HOME="$tmp/cargo-home"
features=() rustflags="--cap-lints=warn"
if [ $sdp = 1 ]; then
  features=(--features sdp)
  rustflags+=" -C link-arg=-l:liblapack.so.3 -C link-arg=-l:libblas.so.3"
fi
RUSTFLAGS="$rustflags" cargo build --release --offline -q "${features[@]}" 2> "$tmp/build.log" ||
  { tail -30 "$tmp/build.log" >&2; die "cargo build --offline failed (log above)"; }
cd - >/dev/null
cp "$tmp/drv/target/release/clarabel_solve" "$out"
printf 'build-clarabel: built %s (Clarabel %s%s)\n' "$out" "$([ $sdp = 1 ] && printf 'sdp, ' || true)" "$(sed -n 's/^version = "\(.*\)"/\1/p' "$src/Cargo.toml" | head -1)"
