#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# find-hdf5.sh - scripts/find-hdf5 refuses an HDF5 linked against another
# MPI than the compiler wrapper's (the program would load both MPI
# libraries and crash at its first HDF5 call), names both, and accepts the
# build's own pair or a wrapper whose MPI it cannot tell. The wrappers here
# are stand-ins printing a -show line; the HDF5 is the one the build uses.
# Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
w=$(mktemp -d /tmp/g500-find-hdf5.XXXXXX)
trap 'rm -rf "$w"' EXIT
export MPI=${MPI:-openmpi}
export MPICC=${MPICC:-mpicc} HDF5_PC=${HDF5_PC:-hdf5-$MPI}

if scripts/find-hdf5 --check 2>"$w/err"; then ok "the build's MPICC and HDF5 are accepted"
else ko "the build's own pair refused: $(cat "$w/err")"; fi

# The MPI library the build's HDF5 links.
lib=$(scripts/find-hdf5 --lib)
deps=$([ -n "$lib" ] && ldd "$lib" 2>/dev/null | awk '{print $1}')
if grep -q '^libmpich\.so' <<<"$deps"; then mine=mpich other=mpi
elif grep -q '^libmpi\.so' <<<"$deps"; then mine=mpi other=mpich
else mine=''; fi

wrapper() { # $1 = name, $2 = the -show line
    printf '#!/bin/sh\necho "%s"\n' "$2" >"$w/$1"
    chmod +x "$w/$1"
}
wrapper other "gcc -I/opt/x/include -L/opt/x/lib -l${other:-mpich}"
wrapper unknown "cc"

if [ -z "$mine" ]; then
    ok "skipped the mismatch case: $lib names no libmpi or libmpich"
elif MPICC=$w/other scripts/find-hdf5 --check 2>"$w/err"; then
    ko "an HDF5 built with lib$mine accepted with a wrapper linking lib$other"
elif grep -q "built with lib$mine but MPICC=$w/other links lib$other" "$w/err" &&
    [ "$(wc -l <"$w/err")" = 1 ]; then
    ok "another MPI's HDF5 refused in one line naming both: $(cat "$w/err")"
else
    ko "mismatch refused without the message: $(cat "$w/err")"
fi
# Make asks for the flags: the refusal holds there too, with nothing on stdout.
out=$(MPICC=$w/other scripts/find-hdf5 --libs 2>/dev/null); rc=$?
if [ -z "$mine" ] || { [ $rc = 1 ] && [ -z "$out" ]; }; then ok "--libs refuses too (exit $rc, no flags)"
else ko "--libs with a mismatched MPI: exit $rc, printed '$out'"; fi

if MPICC=$w/unknown scripts/find-hdf5 --check 2>"$w/err"; then ok "a wrapper whose MPI cannot be told is not refused"
else ko "unknown wrapper refused: $(cat "$w/err")"; fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
