#!/usr/bin/env bash
# Issue #2's load-speed goal: `oltpgen tpcc load --scale N` into the built-in PostgreSQL, wall time,
# against what PostgreSQL itself needs to load the same rows from the CSV files `--csv` writes, with the
# same parallelism (2 COPY streams, then keys and indexes over 2 sessions, then ANALYZE over 2 sessions).
#
# Usage: benches/load-baseline.sh [SCALE] [BINARY]
#   SCALE   warehouses (default 10)
#   BINARY  the oltpgen binary (default target/release/oltpgen in the repository)
# Environment:
#   RUNS=N        measure N times and print the medians (default 1)
#   PGBIN=DIR     PostgreSQL client tools (default /usr/lib/postgresql/15/bin, else $PATH)
#   KEEP=1        keep the temporary directory (default: removed)
#
# One run:
#   1. a fresh data dir under /tmp; time `oltpgen tpcc load --scale S --data-dir D` (initdb, server start,
#      load, server stop: the command as a user runs it), and keep the figures the command prints;
#   2. `oltpgen tpcc load --scale S --csv DIR` (not timed);
#   3. start the same server (`oltpgen local start`), dump the loaded schema (pre-data and post-data, without
#      oltpgen_meta), drop the loaded tables (`oltpgen tpcc drop`), CHECKPOINT, apply pre-data, then time:
#        copy     2 psql sessions, each `\copy <table> FROM '<table>.csv' (FORMAT csv)` for its tables;
#                 the tables are split so both sessions take about as long (see the weights before split_two below);
#        keys     the post-data statements (primary keys, 2 secondary indexes) over 2 psql sessions,
#                 biggest table first, each statement to the less loaded session (rows as the load);
#        analyze  ANALYZE of the 9 tables over 2 psql sessions, split the same way;
#      and, separately, the CHECKPOINT after it (oltpgen's wall time includes the server's shutdown
#      checkpoint, the baseline does not);
#   4. print both times and their ratio, stop the server, remove the temporary directory.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scale="${1:-10}"
bin="${2:-$here/target/release/oltpgen}"
runs="${RUNS:-1}"
pgbin="${PGBIN:-/usr/lib/postgresql/15/bin}"
if [[ -x "$pgbin/psql" ]]; then
    psql="$pgbin/psql"
    pg_dump="$pgbin/pg_dump"
else
    psql="$(command -v psql)"
    pg_dump="$(command -v pg_dump)"
fi
[[ -x "$bin" ]] || { echo "no oltpgen binary at $bin (cargo build --release?)" >&2; exit 2; }
[[ "$scale" =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [SCALE] [BINARY]" >&2; exit 2; }

tables=(order_line stock customer history orders new_order item district warehouse)

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

work=""
data=""
cleanup() {
    if [[ -n "$data" && -d "$data" ]]; then
        "$bin" local stop --data-dir "$data" >/dev/null 2>&1 || true
    fi
    if [[ -n "$work" && -d "$work" && "${KEEP:-0}" != 1 ]]; then
        rm -rf "$work"
    fi
}
trap cleanup EXIT

# Runs psql on one SQL file, quietly, stopping at the first error.
run_sql() { "$psql" -X -q -v ON_ERROR_STOP=1 -d "$1" -f "$2" >/dev/null; }

# Runs the SQL files $2, $3 (one psql session each) side by side against $1; sets `two` to each
# session's seconds ("a, b").
two=""
run_two() {
    local url="$1" a="$2" b="$3" t0 pa pb
    t0=$(now)
    ( run_sql "$url" "$a"; secs "$t0" "$(now)" >"$a.secs" ) &
    pa=$!
    ( run_sql "$url" "$b"; secs "$t0" "$(now)" >"$b.secs" ) &
    pb=$!
    wait "$pa"
    wait "$pb"
    two="$(cat "$a.secs"), $(cat "$b.secs")"
}

# Splits weighted lines "<weight> <text>" (read on stdin) over two files, biggest first, each to the
# less loaded file (longest-processing-time-first).
split_two() {
    sort -k1,1gr | awk -v a="$1" -v b="$2" '{
        w = $1; sub(/^[^ ]+ /, "");
        if (la <= lb) { print > a; la += w } else { print > b; lb += w }
    } END { close(a); close(b) }'
}

one_run() {
    local n="$1"
    work="$(mktemp -d /tmp/oltpgen-load-baseline.XXXXXX)"
    chmod 755 "$work"
    data="$work/pg"
    local csv="$work/csv" sql="$work/sql"
    mkdir -p "$sql"
    echo "run $n: load average $(cut -d' ' -f1-3 /proc/loadavg)"

    # 1. oltpgen, timed as a user would time it.
    local t0 t1 line
    t0=$(now)
    line=$("$bin" tpcc load --scale "$scale" --data-dir "$data" --quiet)
    t1=$(now)
    local oltp_wall
    oltp_wall=$(secs "$t0" "$t1")
    echo "  oltpgen: $line (wall $oltp_wall s)"
    # "... rows in 15.1 s (...; copy 9.4 s, keys and ANALYZE 5.7 s)"
    local rep_total rep_copy rep_keys
    rep_total=$(sed -E 's/.* rows in ([0-9.]+) s.*/\1/' <<<"$line")
    rep_copy=$(sed -E 's/.*; copy ([0-9.]+) s.*/\1/' <<<"$line")
    rep_keys=$(sed -E 's/.*keys and ANALYZE ([0-9.]+) s.*/\1/' <<<"$line")

    # 2. The same rows as CSV files (not timed).
    "$bin" tpcc load --scale "$scale" --csv "$csv" --quiet >/dev/null
    local -A rows bytes
    local t
    for t in "${tables[@]}"; do
        rows[$t]=$(wc -l <"$csv/$t.csv")
        bytes[$t]=$(stat -c %s "$csv/$t.csv")
    done

    # 3. The same server, the same schema, loaded by PostgreSQL itself.
    "$bin" local start --data-dir "$data" >/dev/null
    local url
    url=$("$bin" local url --data-dir "$data")
    if [[ "$n" == 1 ]]; then
        {
            echo "  server: $("$psql" -X -Atd "$url" -c 'show server_version')," \
                "shared_buffers $("$psql" -X -Atd "$url" -c 'show shared_buffers')," \
                "maintenance_work_mem $("$psql" -X -Atd "$url" -c 'show maintenance_work_mem')," \
                "max_wal_size $("$psql" -X -Atd "$url" -c 'show max_wal_size')," \
                "wal_level $("$psql" -X -Atd "$url" -c 'show wal_level')," \
                "max_parallel_maintenance_workers $("$psql" -X -Atd "$url" -c 'show max_parallel_maintenance_workers')"
        }
    fi
    "$pg_dump" -d "$url" --schema-only --section=pre-data --no-owner --no-privileges -T oltpgen_meta >"$sql/pre.sql"
    "$pg_dump" -d "$url" --schema-only --section=post-data --no-owner --no-privileges -T oltpgen_meta >"$sql/post.sql"
    "$bin" tpcc drop --data-dir "$data" --quiet >/dev/null
    "$psql" -X -q -v ON_ERROR_STOP=1 -d "$url" -c 'SET client_min_messages = warning' \
        -c 'DROP TABLE IF EXISTS oltpgen_meta' -c 'CHECKPOINT'
    run_sql "$url" "$sql/pre.sql"

    # COPY streams. Weight = rows * 53 + bytes: single-stream \copy times on the reference machine fit
    # about 0.76 us per row + 14 ns per byte. At scale 10 this puts order_line and the small tables in
    # one session and stock + customer in the other (about 7 s each when run alone).
    for t in "${tables[@]}"; do
        echo "$((rows[$t] * 53 + bytes[$t])) \\copy $t FROM '$csv/$t.csv' (FORMAT csv)"
    done | split_two "$sql/copy-a.sql" "$sql/copy-b.sql"

    # Keys and indexes: one statement per line, weighted by its table's rows.
    awk '/^(ALTER|CREATE)/ { s = "" } /^(ALTER|CREATE)/, /;$/ { s = s (s == "" ? "" : " ") $0; if ($0 ~ /;$/) print s }' \
        "$sql/post.sql" >"$sql/post.lines"
    local count
    count=$(wc -l <"$sql/post.lines")
    [[ "$count" -gt 0 ]] || { echo "no keys or indexes in the post-data dump" >&2; exit 1; }
    while IFS= read -r stmt; do
        t=$(sed -E 's/.*(TABLE ONLY|ON) public\.([a-z_]+).*/\2/' <<<"$stmt")
        echo "${rows[$t]:-0} $stmt"
    done <"$sql/post.lines" | split_two "$sql/keys-a.sql" "$sql/keys-b.sql"

    # ANALYZE reads a sample of at most 30,000 rows (default_statistics_target 100) and works per column:
    # weight = min(rows, 30000) * columns.
    local -A cols
    while IFS='|' read -r t c; do cols[$t]=$c; done < <("$psql" -X -Atd "$url" \
        -c "SELECT relname, relnatts FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace")
    for t in "${tables[@]}"; do
        echo "$(( (rows[$t] < 30000 ? rows[$t] : 30000) * ${cols[$t]:-1} )) ANALYZE $t;"
    done | split_two "$sql/analyze-a.sql" "$sql/analyze-b.sql"

    local c0 c1 k1 a1 ck copy_ab keys_ab an_ab
    c0=$(now)
    run_two "$url" "$sql/copy-a.sql" "$sql/copy-b.sql"
    copy_ab="$two"
    c1=$(now)
    run_two "$url" "$sql/keys-a.sql" "$sql/keys-b.sql"
    keys_ab="$two"
    k1=$(now)
    run_two "$url" "$sql/analyze-a.sql" "$sql/analyze-b.sql"
    an_ab="$two"
    a1=$(now)
    "$psql" -X -q -d "$url" -c 'CHECKPOINT'
    ck=$(secs "$a1" "$(now)")

    local loaded
    loaded=$("$psql" -X -Atd "$url" -c "SELECT (SELECT count(*) FROM order_line) + (SELECT count(*) FROM stock) + (SELECT count(*) FROM customer) + (SELECT count(*) FROM history) + (SELECT count(*) FROM orders) + (SELECT count(*) FROM new_order) + (SELECT count(*) FROM item) + (SELECT count(*) FROM district) + (SELECT count(*) FROM warehouse)")
    "$bin" local stop --data-dir "$data" >/dev/null

    local base copy keys an
    base=$(secs "$c0" "$a1")
    copy=$(secs "$c0" "$c1")
    keys=$(secs "$c1" "$k1")
    an=$(secs "$k1" "$a1")
    names() { grep -oE "$1 [a-z_]+" "$2" | cut -d' ' -f2 | paste -sd+; }
    echo "  sessions: copy $(names copy "$sql/copy-a.sql") | $(names copy "$sql/copy-b.sql");" \
        "ANALYZE $(names ANALYZE "$sql/analyze-a.sql") | $(names ANALYZE "$sql/analyze-b.sql")"
    echo "  baseline: $loaded rows in $base s (copy $copy s [sessions $copy_ab], keys $keys s [$keys_ab], ANALYZE $an s [$an_ab]); CHECKPOINT after it $ck s"
    echo "  oltpgen wall / baseline = $(ratio "$oltp_wall" "$base"); oltpgen's own total / baseline = $(ratio "$rep_total" "$base");" \
        "load average now $(cut -d' ' -f1-3 /proc/loadavg) (well above $(nproc) means other work shared the cores)"

    echo "$oltp_wall $rep_total $rep_copy $rep_keys $base $copy $keys $an $ck" >>"$summary"

    cleanup
    work=""
    data=""
}

echo "oltpgen tpcc load --scale $scale vs PostgreSQL COPY of the same CSV; $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo); $bin"
summary="$(mktemp /tmp/oltpgen-load-baseline.summary.XXXXXX)"
trap 'cleanup; rm -f "$summary"' EXIT
for ((i = 1; i <= runs; i++)); do
    one_run "$i"
done

# shellcheck disable=SC2046 # one number per word
med() { median $(awk -v k="$1" '{ print $k }' "$summary"); }
echo "scale $scale, $runs run(s), medians:"
echo "  oltpgen:  wall $(med 1) s; its own figures: total $(med 2) s, copy $(med 3) s, keys and ANALYZE $(med 4) s"
echo "  baseline: $(med 5) s: copy $(med 6) s, keys $(med 7) s, ANALYZE $(med 8) s (then CHECKPOINT $(med 9) s)"
echo "  ratio oltpgen wall / baseline: $(ratio "$(med 1)" "$(med 5)") (goal <= 1.20); oltpgen's own total / baseline: $(ratio "$(med 2)" "$(med 5)")"
if [[ "$scale" == 10 ]]; then
    echo "  against go-tpc's ~52 s at scale 10: $(ratio 52 "$(med 1)")x faster (goal >= 3x, i.e. wall <= 17.3 s)"
fi
