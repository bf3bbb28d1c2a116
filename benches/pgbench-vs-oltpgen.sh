#!/bin/bash
# pgbench against oltpgen on pgbench's built-in scripts (BENCHMARKS.md, "pgbench's scripts against
# pgbench"): three pairs of select-only and tpcb-like, pgbench then oltpgen, 16 clients, 2 threads.
# One line per run: pair, script, tool, TPS, CPU seconds (user + system, then each), transactions,
# load average. URL: a database `pgbench -i -s 10` made. Scratch files go to $TMPDIR (default /tmp).
# ORDER="oltpgen pgbench" runs oltpgen first in every pair (default: pgbench first).
PGB=${PGB:-/usr/lib/postgresql/15/bin/pgbench}
OLT=${OLT:-target/release/oltpgen}
URL=${URL:?give URL=postgres://user@host/db}
DUR=${DUR:-60}
ORDER=${ORDER:-pgbench oltpgen}
for pair in 1 2 3; do
  for w in select-only tpcb-like; do
    for tool in $ORDER; do
      if [ $tool = pgbench ]; then
        /usr/bin/time -f "CPU %U %S" -o ${TMPDIR:-/tmp}/pgbench-vs-time $PGB -n -M prepared -c 16 -j 2 -T $DUR -b $w "$URL" > ${TMPDIR:-/tmp}/pgbench-vs-out 2>&1
        tps=$(grep -o 'tps = [0-9.]*' ${TMPDIR:-/tmp}/pgbench-vs-out | awk '{print $3}')
        txns=$(grep -o 'actually processed: [0-9]*' ${TMPDIR:-/tmp}/pgbench-vs-out | awk '{print $3}')
      else
        out=$(mktemp -d "${TMPDIR:-/tmp}/pgbench-vs-XXXXXX")/result
        /usr/bin/time -f "CPU %U %S" -o ${TMPDIR:-/tmp}/pgbench-vs-time $OLT custom run --url "$URL" --pgbench-builtin $w --users 16 --client-threads 2 --warmup 0s --duration ${DUR}s --quiet --out $out > ${TMPDIR:-/tmp}/pgbench-vs-out 2>&1
        tps=$(grep '^step 1 (run 1)' ${TMPDIR:-/tmp}/pgbench-vs-out | grep -o 'TPS [0-9.]*' | awk '{print $2}')
        txns=$(python3 - "$out/result.json" <<'PY'
import json,sys
r=json.load(open(sys.argv[1]))
def find(o):
    if isinstance(o,dict):
        for k,v in o.items():
            if k in ('transactions','count_total','txns_total') and isinstance(v,int): return v
            x=find(v)
            if x: return x
    if isinstance(o,list):
        for v in o:
            x=find(v)
            if x: return x
print(find(r) or '')
PY
)
      fi
      cpu=$(awk '{print $2+$3, "user_s=" $2, "sys_s=" $3}' ${TMPDIR:-/tmp}/pgbench-vs-time)
      echo "$pair $w $tool tps=$tps cpu_s=$cpu txns=$txns load=$(cut -d' ' -f1 /proc/loadavg)"
    done
  done
done
