#!/bin/sh
# run_ltl.sh: the LTL figures of docs/benchmarks.md (section 13): mcheck's
# --ltl against its safety search, beside SPIN's pan -a (POR on, and
# -DNOREDUCE) on the Promela versions, one run each. The props and the
# formulas are given to both the same way: reqgrant_*.bc declare theirs
# (the .pml #define them); livelock_ordered gets flag/location props
# appended to both texts.
#   MCHECK=rel/tools/mcheck sh bench/spin/run_ltl.sh
# Prints "model | formula | checker | verdict | states | transitions | s".
# Does not do: the philosophers (no Promela version with a progress label).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
mcheck=$(cd "$(dirname "${MCHECK:-rel/tools/mcheck}")" && pwd)/$(basename "${MCHECK:-rel/tools/mcheck}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

cat "$top/models/livelock_ordered.bc" > lo.bc
printf 'prop f0 = flag[0] != 0\nprop w0 = t[0]@progress_work\nprop w1 = t[1]@progress_work\n' >> lo.bc
cat "$here/livelock_ordered.pml" > lo.pml
printf '#define f0 (flag[0] != 0)\n#define w0 (t[0]@progress_work)\n#define w1 (t[1]@progress_work)\n' >> lo.pml

mc() { # mc NAME MODEL.bc FORMULA|""
    if [ -n "$3" ]; then set -- "$1" "$2" "$3" --ltl "$3"; else set -- "$1" "$2" "(safety)"; fi
    mname=$1 mmodel=$2 mformula=$3; shift 3
    "$mcheck" --json "$@" "$mmodel" | python3 -c '
import json, sys
j = json.load(sys.stdin); s = j["stats"]
print("%s | %s | mcheck | %s | %d | %d | nested %s / %s | %.4f" % (sys.argv[1], sys.argv[2], j["verdict"],
      s["states_stored"], s["transitions"], s.get("nested_states", "-"), s.get("nested_transitions", "-"),
      s["seconds"]))' "$mname" "$mformula"
}

pan() { # pan NAME MODEL.pml FORMULA|"" GCC-FLAGS
    if [ -n "$3" ]; then
        { cat "$2"; spin -f "!($3)"; } > m.pml; gflags="$4"; pflags="-a"
    else
        cat "$2" > m.pml; gflags="-DSAFETY $4"; pflags=""
    fi
    spin -a m.pml >/dev/null
    gcc -O2 $gflags -o pan pan.c
    ./pan $pflags -m1000000 > out.txt 2>&1 || true
    v=violated; grep -qE 'errors: 0$' out.txt && v=ok
    st=$(grep -E 'states, stored' out.txt | sed 's/^ *//')
    tr=$(grep -E 'transitions \(' out.txt | sed 's/^ *//; s/ (.*//')
    t=$(grep -E 'pan: elapsed time' out.txt | sed 's/.*time //')
    echo "$1 | ${3:-(safety)} | pan ${4:-POR} | $v | $st | $tr | | $t"
}

for m in reqgrant_unfair reqgrant_fair; do
    for f in "" "[] (req0 -> <> grant0)" "[] (req1 -> <> grant1)"; do
        mc $m "$top/models/$m.bc" "$f"
        pan $m "$here/$m.pml" "$f" ""
        pan $m "$here/$m.pml" "$f" -DNOREDUCE
    done
done
for f in "" "[] !(w0 && w1)" "[] (f0 -> <> w0)"; do
    mc livelock_ordered lo.bc "$f"
    pan livelock_ordered lo.pml "$f" ""
    pan livelock_ordered lo.pml "$f" -DNOREDUCE
done
