#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cli-options.sh - the options of every command, read from its --help
# table: a short letter means one long option in every command that has
# it, --json takes a PATH everywhere, and each command rejects an unknown
# option with exit 2 and one message naming it.
. "$(dirname "$0")/cli-env.bash"
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
cmds="gen components topo partition run report stats"
declare -A long_of=() where=()
clash=""
for c in $cmds; do
    help=$("$G500" $c --help 2>&1) || { ko "$c --help exits 0"; continue; }
    while read -r s l; do
        if [ -n "${long_of[$s]:-}" ] && [ "${long_of[$s]}" != "$l" ]; then
            clash="$clash $s: ${where[$s]} --${long_of[$s]}, $c --$l;"
        fi
        long_of[$s]=$l where[$s]=$c
    done < <(sed -nE 's/^  -([a-zA-Z]), --([a-z-]+).*/\1 \2/p' <<<"$help")
    if grep -q -- '--json' <<<"$help"; then
        grep -qE -- '--json PATH' <<<"$help" && ok "$c: --json takes a PATH" || ko "$c: --json without PATH"
    fi
done
[ ${#long_of[@]} -ge 8 ] && [ -z "$clash" ] && ok "one meaning per short option (${#long_of[@]} letters)" ||
    ko "short options: ${#long_of[@]} letters;$clash"
[ "${long_of[s]:-}" = scale ] && [ "${long_of[t]:-}" = topology ] && ok "-s is scale, -t is topology" ||
    ko "-s is ${long_of[s]:-none}, -t is ${long_of[t]:-none}"
for c in $cmds; do
    err=$("$G500" $c --no-such-option x 2>&1 >/dev/null); rc=$?
    [ $rc -eq 2 ] && [ "$(grep -c "unknown option '--no-such-option'" <<<"$err")" = 1 ] &&
        ok "$c: an unknown option is a usage error naming it" || ko "$c --no-such-option: exit $rc: $err"
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
