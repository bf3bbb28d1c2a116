#!/usr/bin/env bash
# The MySQL engine's load against MySQL's own fastest path for the same rows: `oltpgen tpcc load` (LOAD DATA
# LOCAL INFILE fed from oltpgen's generator over 2 connections) against server-side `LOAD DATA INFILE` of
# the CSV files `--csv` writes, 2 statements at once, into empty copies of the same tables (primary key
# only, secondary indexes dropped, unique_checks and foreign_key_checks off: what oltpgen's load has while
# its rows arrive, and what lets MariaDB load an empty table in bulk).
# Compares the rows phase: oltpgen's `copy` figure against the baseline's wall time. Alternates RUNS times.
#
#   MYSQL_SOCK=/path/mysqld.sock PORT=3306 MYSQL_PWD=… benches/load-baseline-mysql.sh [SCALE]
# The server is the caller's (local_infile on, secure_file_priv allowing the CSV directory); oltpgen logs
# in over TCP as $MYSQL_USER (default bench), the baseline as root over the socket (LOAD DATA INFILE
# needs the FILE privilege). env: OLTPGEN (default target/release/oltpgen), RUNS (default 3), CSV (the
# files' directory, default /tmp/oltpgen-load-baseline-csv, kept).
set -euo pipefail
W=${1:-4}; RUNS=${RUNS:-3}; PORT=${PORT:-3306}; MYSQL_USER=${MYSQL_USER:-bench}
: "${MYSQL_SOCK:?the socket of the server, for root}" "${MYSQL_PWD:?the password of MYSQL_USER}"
OLTPGEN=${OLTPGEN:-target/release/oltpgen}; CSV=${CSV:-/tmp/oltpgen-load-baseline-csv}
ROOT() { env -u MYSQL_PWD mariadb --no-defaults -S "$MYSQL_SOCK" -uroot "$@"; }
URL="mariadb://$MYSQL_USER@127.0.0.1:$PORT"
[ -f "$CSV/warehouse.csv" ] || "$OLTPGEN" tpcc load --scale "$W" --csv "$CSV" --quiet >/dev/null
tables="warehouse district customer history new_order orders order_line item stock"
# The LOAD DATA INFILE of table $1 into load_b: NULL is an empty field in the CSV files, so a nullable
# column is read into a variable and NULLIF'd.
statement() {
  local q="FROM information_schema.columns WHERE table_schema='load_b' AND table_name='$1'" cols sets
  cols=$(ROOT -N -e "SELECT GROUP_CONCAT(IF(is_nullable='YES', CONCAT('@', column_name), column_name) ORDER BY ordinal_position) $q")
  sets=$(ROOT -N -e "SELECT COALESCE(CONCAT('SET ', GROUP_CONCAT(CONCAT(column_name, ' = NULLIF(@', column_name, ', '''')'))), '') $q AND is_nullable='YES'")
  local fields="FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY '' LINES TERMINATED BY '\\n'"
  echo "SET SESSION unique_checks = 0, foreign_key_checks = 0; LOAD DATA INFILE '$CSV/$1.csv' INTO TABLE load_b.$1 CHARACTER SET utf8mb4 $fields ($cols) $sets"
}
for pass in $(seq "$RUNS"); do
  ROOT -e "DROP DATABASE IF EXISTS load_a"
  "$OLTPGEN" tpcc load --scale "$W" --load-workers 2 --create-database --quiet --url "$URL/load_a" | sed "s/^/pass $pass oltpgen: /"
  ROOT -e "DROP DATABASE IF EXISTS load_b; CREATE DATABASE load_b"
  for t in $tables; do ROOT -e "CREATE TABLE load_b.$t LIKE load_a.$t"; done
  ROOT load_b -e "DROP INDEX customer_last_name ON customer; DROP INDEX orders_customer ON orders"
  ROOT -e "DROP DATABASE load_a"
  statements=""
  for t in order_line stock customer history orders new_order item district warehouse; do
    statements+="$(statement "$t")"$'\n'
  done
  start=$(date +%s.%N)
  printf '%s' "$statements" | xargs -d '\n' -P 2 -I{} env -u MYSQL_PWD mariadb --no-defaults -S "$MYSQL_SOCK" -uroot -e "{}"
  end=$(date +%s.%N)
  rows=$(ROOT -N -e "SELECT SUM(table_rows) FROM information_schema.tables WHERE table_schema='load_b'")
  echo "pass $pass LOAD DATA INFILE from CSV: $(echo "$end - $start" | bc) s (about $rows rows)"
  ROOT -e "DROP DATABASE load_b"
done
