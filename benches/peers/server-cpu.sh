# Sourced by compare and procs-ab/run. server_cpu DATA_DIR: CPU ticks used so far by the PostgreSQL server
# whose data directory is DATA_DIR: the postmaster (with the children it reaped, so a run's backends count
# once they exit) and its live children. Unlike the host's CPU, it holds on a machine shared with others.
server_cpu() {
  local pm; pm=$(head -1 "$1/postmaster.pid")
  { cat "/proc/$pm/stat"; for c in $(cat /proc/"$pm"/task/*/children); do cat "/proc/$c/stat" 2>/dev/null || true; done; } |
    awk '{ sub(/^.*\) /, ""); t += $12 + $13 } NR == 1 { t += $14 + $15 } END { print t }'
}
