#!/bin/sh
# heldout.sh [SDPLIB_DIR]: the held-out split runs of BENCHMARKS.md ("Solver
# trust, round 2"): SDPLIB with CSDP side by side, Maros–Mészáros and CBLIB,
# each table tallied per half (bench/suites/split.go), and, with
# SDPLIB_DIR (the SDPLIB 1.2 distribution: data/*.dat-s and README.md), the
# SDPLIB members outside the shared data.
#
# CSDP is Debian's coinor-csdp: installed here when missing (never by make
# test); without it the SDPLIB table has no CSDP column.
set -eu
if ! command -v csdp >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		apt-get install -y coinor-csdp
	else
		echo "heldout.sh: csdp not found and cannot be installed here (apt-get install coinor-csdp as root); going on without it" >&2
	fi
fi
go build -o bin/suites ./bench/suites
bin/suites -set sdplib -csdp -time-limit 150s -out sdplib
bin/suites -set maros -time-limit 300s -out maros
bin/suites -set cblib -time-limit 300s -out cblib
if [ $# -ge 1 ]; then
	bin/suites -set none -unseen "$1/data" -csdp -time-limit 200s -out unseen
fi
