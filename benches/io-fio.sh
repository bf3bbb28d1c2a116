#!/usr/bin/env bash
# Issue 28's speed goal: `oltpgen io run` against fio (Debian's `fio`) on the same file and access
# specification, in one run, alternating, medians quoted: IOPS, and CPU per I/O (user + system CPU of
# the whole process, from GNU time, over the I/Os it completed).
#
# Usage: benches/io-fio.sh [BINARY]
#   BINARY  the oltpgen binary (default target/release/oltpgen in the repository)
# Environment:
#   DIR=PATH       where the file goes (default /tmp; it must take O_DIRECT)
#   SIZE=1G        the file's I/O region
#   DURATION=10    measured seconds per run (after 2 s unmeasured)
#   RUNS=3         runs of each tool and spec, alternating; the medians are printed
#
# Specs (Iometer's study, then the two classic queue depths):
#   16k-30r-4x4   16 KiB, 30% read, 100% random, 4 workers x 4 outstanding (16 in flight)
#   4k-rr-qd1     4 KiB random reads, 1 in flight
#   4k-rr-qd32    4 KiB random reads, 32 in flight
# Tools, each method on both sides: oltpgen and fio with io_uring (a ring per worker: fio's jobs are the
# workers, its iodepth their outstanding I/Os), and oltpgen and fio with psync (a thread per I/O in
# flight, positional reads and writes: one fio job each).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${1:-$here/target/release/oltpgen}"
dir="${DIR:-/tmp}"
size="${SIZE:-1G}"
duration="${DURATION:-10}"
runs="${RUNS:-3}"
[[ -x "$bin" ]] || { echo "no oltpgen binary at $bin (cargo build --release?)" >&2; exit 2; }
command -v fio >/dev/null || { echo "fio is not installed: apt-get install fio" >&2; exit 2; }

work="$(mktemp -d "$dir/oltpgen-io-fio.XXXXXX")"
file="$work/io.dat"
trap 'rm -rf "$work"' EXIT

# Fill the file once (oltpgen's fill: incompressible, marked), kept for every run below.
"$bin" io run --file "$file" --size "$size" --block 4k --outstanding 1 --workers 1 --ramp 0s --duration 1s \
    --keep-file --quiet --no-counters --out "$work/fill" >/dev/null

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf "%.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# cpu_s "command…": runs it, prints its user + system CPU seconds on the last line of $work/time.
timed() { /usr/bin/time -o "$work/time" -f '%U %S' "$@"; }
cpu_s() { awk '{ print $1 + $2 }' "$work/time"; }

# oltpgen ENGINE BLOCK READ WORKERS OUTSTANDING: prints "IOPS CPU_US_PER_IO".
oltpgen_run() {
    local out="$work/o$RANDOM$RANDOM"
    timed "$bin" io run --file "$file" --size "$size" --ioengine "$1" --block "$2" --read "$3" --random 100% \
        --workers "$4" --outstanding "$5" --ramp 2s --duration "${duration}s" --report-interval "${duration}s" \
        --keep-file --quiet --no-counters --out "$out" >/dev/null
    python3 - "$out/result.json" "$(cpu_s)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); s = r["steps"][0]
# The I/Os of the whole process: the measured window's rate over ramp + window.
total = s["tps"] * (s["duration_s"] + 2.0)
print(f'{s["tps"]:.1f} {float(sys.argv[2]) * 1e6 / total:.1f}')
PY
}

# fio ENGINE BLOCK READ JOBS DEPTH: prints "IOPS CPU_US_PER_IO".
fio_run() {
    local rw=randrw
    [[ "$3" == 100% ]] && rw=randread
    timed fio --name=io --filename="$file" --offset=1m --size="$size" --direct=1 --ioengine="$1" \
        --rw="$rw" --rwmixread="${3%\%}" --bs="$2" --numjobs="$4" --iodepth="$5" --group_reporting \
        --time_based --ramp_time=2 --runtime="$duration" --randrepeat=0 --norandommap \
        --output-format=json --output="$work/fio.json" >/dev/null
    python3 - "$work/fio.json" "$(cpu_s)" "$duration" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
iops = j["read"]["iops"] + j["write"]["iops"]
total = iops * (float(sys.argv[3]) + 2.0)
print(f'{iops:.1f} {float(sys.argv[2]) * 1e6 / total:.1f}')
PY
}

printf '%-12s %-22s %10s %14s\n' spec tool IOPS "CPU µs/IO"
while read -r spec block read workers outstanding; do
    declare -A iops=() cpu=()
    for ((i = 0; i < runs; i++)); do
        for tool in oltpgen-io_uring fio-io_uring oltpgen-psync fio-psync; do
            case "$tool" in
                oltpgen-*) r=$(oltpgen_run "${tool#oltpgen-}" "$block" "$read" "$workers" "$outstanding") ;;
                fio-psync) r=$(fio_run psync "$block" "$read" $((workers * outstanding)) 1) ;;
                fio-io_uring) r=$(fio_run io_uring "$block" "$read" "$workers" "$outstanding") ;;
            esac
            iops[$tool]+="${r% *} "
            cpu[$tool]+="${r#* } "
        done
    done
    for tool in oltpgen-io_uring fio-io_uring oltpgen-psync fio-psync; do
        # shellcheck disable=SC2086
        printf '%-12s %-22s %10s %14s\n' "$spec" "$tool" "$(median ${iops[$tool]})" "$(median ${cpu[$tool]})"
    done
    unset iops cpu
done <<'SPECS'
16k-30r-4x4 16k 30% 4 4
4k-rr-qd1 4k 100% 1 1
4k-rr-qd32 4k 100% 1 32
SPECS
