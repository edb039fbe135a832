#!/usr/bin/env bash
# Installs the HiGHS C/C++ library (headers, libhighs, highs.pc) into /usr/local when
# pkg-config cannot find it. Idempotent: does nothing when HiGHS is already present.
#
# Route: Debian bookworm does not package HiGHS, but Debian's newer suite (trixie) has
# its source package. We add a temporary deb-src entry that reuses the URI of this
# machine's configured apt source, download the upstream tarball with apt-get source,
# build it with cmake (Release, no tests) and install it. About 4 minutes on 2 cores.
set -euo pipefail

say() { printf 'install-highs: %s\n' "$*"; }
die() { printf 'install-highs: ERROR: %s\n' "$*" >&2; exit 1; }

if pkg-config --exists highs 2>/dev/null; then
  say "HiGHS $(pkg-config --modversion highs) already installed; nothing to do."
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || die "not root and no sudo: install HiGHS yourself (see README.md, 'Installing HiGHS')"
  SUDO="sudo"
fi
command -v apt-get >/dev/null 2>&1 || die "no apt-get: this script knows only Debian-like systems; see README.md, 'Installing HiGHS'"

# On Debian 13 / Ubuntu 24.04+ the binary package exists: prefer it.
$SUDO apt-get update -qq || die "apt-get update failed"
if apt-cache show libhighs-dev >/dev/null 2>&1; then
  say "installing libhighs-dev from the configured apt sources"
  $SUDO apt-get install -y -qq libhighs-dev && pkg-config --exists highs && exit 0
  say "libhighs-dev did not provide highs.pc; building from source instead"
fi

say "installing build tools (cmake, g++, xz-utils, pkg-config)"
$SUDO apt-get install -y -qq cmake g++ make xz-utils pkg-config dpkg-dev >/dev/null || die "could not install build tools"

# Reuse the URI of the configured Debian source (deb822 or one-line format).
uri=""
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
  uri=$(awk '$1=="deb" {for (i=2;i<=NF;i++) if ($i ~ /^(https?|file|mirror):/) {print $i; exit}}' /etc/apt/sources.list)
fi
[ -n "$uri" ] || die "could not find the URI of a configured Debian apt source"
say "using the configured Debian archive for a temporary deb-src entry (suite trixie)"

tmplist=/etc/apt/sources.list.d/privopt-highs-src.list
work=$(mktemp -d)
cleanup() {
  $SUDO rm -f "$tmplist"
  $SUDO apt-get update -qq >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "deb-src $uri trixie main" | $SUDO tee "$tmplist" >/dev/null
$SUDO apt-get update -qq || die "apt-get update with the trixie deb-src entry failed"

cd "$work"
say "downloading the HiGHS source package"
apt-get source --download-only --tar-only highs >/dev/null 2>&1 || apt-get source --download-only highs >/dev/null || die "apt-get source highs failed"
tarball=$(ls highs_*.orig.tar.* 2>/dev/null | head -n 1)
[ -n "$tarball" ] || die "no highs_*.orig.tar.* was downloaded"
say "unpacking $tarball"
mkdir src && tar -xf "$tarball" -C src --strip-components=1

say "configuring (cmake, Release, no tests)"
cmake -S src -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DCMAKE_INSTALL_PREFIX=/usr/local >build.log 2>&1 || { tail -30 build.log; die "cmake configure failed"; }
say "building with $(nproc) jobs (about 4 minutes on 2 cores)"
cmake --build build -j "$(nproc)" >>build.log 2>&1 || { tail -30 build.log; die "build failed"; }
say "installing into /usr/local"
$SUDO cmake --install build >>build.log 2>&1 || { tail -30 build.log; die "install failed"; }
$SUDO ldconfig

export PKG_CONFIG_PATH="/usr/local/lib/pkgconfig:/usr/local/lib64/pkgconfig:${PKG_CONFIG_PATH:-}"
pkg-config --exists highs || die "HiGHS installed but pkg-config still cannot find highs.pc"
say "HiGHS $(pkg-config --modversion highs) installed"
