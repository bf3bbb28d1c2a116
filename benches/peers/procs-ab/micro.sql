-- Used by ./micro: ab_run(prefix, kind, k) runs k calls of one kind of transaction through the functions
-- named prefix_tpcc_*, each call its own transaction (seeded inputs, the same for every prefix), and returns
-- the CPU time this backend spent per call (/proc/self/schedstat: superuser only), the loop included.
CREATE OR REPLACE FUNCTION ab_cpu_ns() RETURNS int8 LANGUAGE sql AS
$$ SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::int8 $$;
CREATE OR REPLACE FUNCTION ab_last(n int4) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT (ARRAY['BAR','OUGHT','ABLE','PRI','PRES','ESE','ANTI','CALLY','ATION','EING'])[n / 100 + 1] ||
         (ARRAY['BAR','OUGHT','ABLE','PRI','PRES','ESE','ANTI','CALLY','ATION','EING'])[n / 10 % 10 + 1] ||
         (ARRAY['BAR','OUGHT','ABLE','PRI','PRES','ESE','ANTI','CALLY','ATION','EING'])[n % 10 + 1] $$;
CREATE OR REPLACE PROCEDURE ab_run(prefix text, kind text, k int4, INOUT ns_per_call float8 DEFAULT 0)
LANGUAGE plpgsql AS $$
DECLARE t0 int8; t1 int8; w int4; d int4; c int4; n int4; items int4[]; last text;
BEGIN
  PERFORM setseed(0.42);
  t0 := ab_cpu_ns();
  FOR i IN 1 .. k LOOP
    w := 1 + floor(random() * 10); d := 1 + floor(random() * 10);
    IF kind = 'new_order' THEN
      n := 5 + floor(random() * 11);
      SELECT array_agg(x ORDER BY x) INTO items FROM (SELECT DISTINCT 1 + floor(random() * 100000)::int4 AS x
        FROM generate_series(1, n)) s;
      n := cardinality(items);
      EXECUTE format('SELECT %s_tpcc_new_order($1, $2, $3, $4, $5, $6, $7, 1, 1)', prefix)
        USING w, d, 1 + floor(random() * 3000)::int4, items, array_fill(w, ARRAY[n]), array_fill(5, ARRAY[n]), array_fill(0, ARRAY[n]);
    ELSIF kind IN ('payment', 'order_status') THEN
      -- 2.5.1.2 / 2.6.1.2: 60% by last name, the rest by id.
      IF random() < 0.6 THEN
        last := ab_last(floor(random() * 1000)::int4); c := 0;
      ELSE
        last := NULL; c := 1 + floor(random() * 3000)::int4;
      END IF;
      IF kind = 'payment' THEN
        EXECUTE format('SELECT %s_tpcc_payment($1, $2, $1, $2, $3, $4, 1234)', prefix) USING w, d, c, last;
      ELSE
        EXECUTE format('SELECT count(*) FROM %s_tpcc_order_status($1, $2, $3, $4)', prefix) USING w, d, c, last;
      END IF;
    ELSIF kind = 'delivery' THEN
      EXECUTE format('SELECT %s_tpcc_delivery($1, 3)', prefix) USING w;
    ELSIF kind = 'stock_level' THEN
      EXECUTE format('SELECT %s_tpcc_stock_level($1, $2, 15)', prefix) USING w, d;
    ELSE
      PERFORM 1;
    END IF;
    COMMIT;
  END LOOP;
  PERFORM pg_sleep(0.001);
  t1 := ab_cpu_ns();
  ns_per_call := (t1 - t0)::float8 / k;
END $$;
