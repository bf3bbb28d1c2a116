-- TPC-C's five transactions (2.4-2.8) as PL/pgSQL functions: one call, one round trip, per transaction.
-- The same statements as the client-side version (txn.rs), so the same rules hold: READ COMMITTED (the
-- caller's session pins it; every read-modify-write is one UPDATE, which re-reads its row after waiting for
-- the lock), locks taken warehouse -> district -> customer and stock rows in item order, the 1% rollback
-- doing its work first. Written for the server's cost: one statement per set of rows (order lines as
-- arrays, not a loop per line), static SQL only (PL/pgSQL caches every statement's plan
-- for the session), PL/pgSQL rather than SQL functions (whose plans are not cached between calls).
-- Delivery's ten districts are one statement, not a loop of ten: each statement a function runs pays the
-- executor's start and end, the plan's revalidation and its relation locks (benches/peers/procs-ab/micro:
-- a fifth of Delivery's CPU). New-Order, Payment and Order-Status chained into one statement each saved
-- nothing there, so they keep one statement per step, whose lock order reads plainly.
-- Read-only transactions are STABLE: all their statements see one snapshot.
-- Replaced whole by `procs.rs` when its version differs: edit freely, the next run installs it.

-- Functions of an older version may have other argument lists: drop every one first.
DO $$
DECLARE f regprocedure;
BEGIN
  FOR f IN SELECT oid::regprocedure FROM pg_proc WHERE proname LIKE 'oltpgen\_tpcc\_%'
           AND pronamespace = current_schema()::regnamespace LOOP
    EXECUTE 'DROP FUNCTION ' || f;
  END LOOP;
END $$;

-- 2.4: New-Order. Lines come as arrays sorted by item (the client's order, so concurrent orders lock stock
-- rows in one order). 2.4.1.5.1: an item may be named twice and each line updates its stock row as if
-- alone; a set-based UPDATE touches a row once, so `pass` numbers each naming of a row (0 the first) and
-- each pass is one statement (nearly every order has one). Returns the order id; an unused item
-- (2.4.2.3) raises SQLSTATE OLRB1 after the whole order is entered, rolling it back.
CREATE FUNCTION oltpgen_tpcc_new_order(p_w int4, p_d int4, p_c int4, p_items int4[], p_supply int4[],
    p_qty int4[], p_pass int4[], p_passes int4, p_all_local int4) RETURNS int4
LANGUAGE plpgsql AS $$
DECLARE
  v_o int4;
  v_d_tax numeric;
  v_w_tax numeric;
  v_customer record;
  v_lines int4 := cardinality(p_items);
  v_entered int4 := 0;
  v_pass_lines int4;
BEGIN
  -- 2.4.2.2: the district is locked first and gives the order id.
  UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d
    RETURNING d_next_o_id - 1, d_tax INTO v_o, v_d_tax;
  SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w;
  SELECT c_discount, c_last, c_credit INTO v_customer FROM customer
    WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;
  FOR k IN 0 .. p_passes - 1 LOOP
    -- 2.4.2.2: quantity drops by q, or wraps by 91 when it would fall under 10; each valid line is
    -- entered with its stock row's district info. A line whose item is unused updates no stock and
    -- enters nothing.
    WITH v AS (
      SELECT * FROM unnest(p_items, p_supply, p_qty, p_pass) WITH ORDINALITY AS v(i_id, w_id, q, pass, n)
      WHERE v.pass = k),
    s AS (
      UPDATE stock SET
        s_quantity = CASE WHEN s_quantity >= v.q + 10 THEN s_quantity - v.q ELSE s_quantity - v.q + 91 END,
        s_ytd = s_ytd + v.q, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + (v.w_id <> p_w)::int4
      FROM v WHERE s_i_id = v.i_id AND s_w_id = v.w_id
      RETURNING v.n, v.i_id, v.w_id, v.q, s_data, CASE p_d
        WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
        WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08
        WHEN 9 THEN s_dist_09 ELSE s_dist_10 END AS dist)
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d,
        ol_quantity, ol_amount, ol_dist_info)
      SELECT v_o, p_d, p_w, s.n, s.i_id, s.w_id, NULL, s.q, s.q * item.i_price, s.dist
      FROM s JOIN item ON item.i_id = s.i_id;
    GET DIAGNOSTICS v_pass_lines = ROW_COUNT;
    v_entered := v_entered + v_pass_lines;
  END LOOP;
  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (v_o, p_d, p_w, p_c, localtimestamp, NULL, v_lines, p_all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o, p_d, p_w);
  -- 2.4.2.3: an item that does not exist rolls the whole order back, after it was entered.
  IF v_entered < v_lines THEN
    RAISE EXCEPTION USING ERRCODE = 'OLRB1', MESSAGE = 'New-Order rolled back: an item is unused (2.4.2.3)';
  END IF;
  RETURN v_o;
END $$;

-- 2.5: Payment, for customer p_c, or (p_last not null) the one at position ceil(n / 2) of those named p_last
-- ordered by c_first (2.5.2.2), found in one index scan. A Payment that matches no customer fails whole
-- (its warehouse and district were paid): SQLSTATE P0002. Returns the customer's id.
CREATE FUNCTION oltpgen_tpcc_payment(p_w int4, p_d int4, p_cw int4, p_cd int4, p_c int4, p_last text,
    p_cents int8) RETURNS int4
LANGUAGE plpgsql AS $$
DECLARE
  v_amount numeric := p_cents / 100.0;
  v_w_name text;
  v_d_name text;
  v_ids int4[];
  v_c int4 := p_c;
  v_customer record;
BEGIN
  UPDATE warehouse SET w_ytd = w_ytd + v_amount WHERE w_id = p_w
    RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip INTO v_customer;
  v_w_name := v_customer.w_name;
  UPDATE district SET d_ytd = d_ytd + v_amount WHERE d_w_id = p_w AND d_id = p_d
    RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip INTO v_customer;
  v_d_name := v_customer.d_name;
  IF p_last IS NOT NULL THEN
    SELECT array_agg(c_id ORDER BY c_first) INTO v_ids FROM customer
      WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last;
    v_c := v_ids[(cardinality(v_ids) + 1) / 2];
  END IF;
  -- 2.5.2.2: bad credit prepends the payment to c_data.
  UPDATE customer SET c_balance = c_balance - v_amount, c_ytd_payment = c_ytd_payment + v_amount,
      c_payment_cnt = c_payment_cnt + 1,
      c_data = CASE WHEN c_credit = 'BC' THEN left(concat_ws(' ', c_id, c_d_id, c_w_id, p_d, p_w,
        to_char(v_amount, 'FM99990.00')) || ' ' || c_data, 500) ELSE c_data END
    WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c
    RETURNING c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone,
      c_since, c_credit, c_credit_lim, c_discount, c_balance, CASE WHEN c_credit = 'BC' THEN left(c_data, 200) END
    INTO v_customer;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'P0002', MESSAGE = 'Payment: no customer matches';
  END IF;
  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (v_customer.c_id, p_cd, p_cw, p_d, p_w, localtimestamp, v_amount, v_w_name || '    ' || v_d_name);
  RETURN v_customer.c_id;
END $$;

-- 2.6: Order-Status (read-only, one snapshot): the customer, their latest order and its lines.
CREATE FUNCTION oltpgen_tpcc_order_status(p_w int4, p_d int4, p_c int4, p_last text)
RETURNS TABLE (r_c_id int4, r_balance numeric, r_first text, r_middle text, r_last text, r_o_id int4,
    r_entry_d timestamp, r_carrier_id int4, r_i_id int4, r_supply_w_id int4, r_quantity int4, r_amount numeric,
    r_delivery_d timestamp)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_ids int4[];
  v_c int4 := p_c;
BEGIN
  IF p_last IS NOT NULL THEN
    SELECT array_agg(c_id ORDER BY c_first) INTO v_ids FROM customer
      WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_last;
    v_c := v_ids[(cardinality(v_ids) + 1) / 2];
  END IF;
  RETURN QUERY
    WITH c AS (SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer
               WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_c),
    o AS (SELECT o_id, o_entry_d, o_carrier_id FROM orders, c
          WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = c.c_id ORDER BY o_id DESC LIMIT 1)
    SELECT c.c_id, c.c_balance, c.c_first::text, c.c_middle::text, c.c_last::text, o.o_id, o.o_entry_d,
      o.o_carrier_id, l.ol_i_id, l.ol_supply_w_id, l.ol_quantity, l.ol_amount, l.ol_delivery_d
    FROM c LEFT JOIN o ON true LEFT JOIN order_line l
      ON l.ol_w_id = p_w AND l.ol_d_id = p_d AND l.ol_o_id = o.o_id;
END $$;

-- 2.7: Delivery, inline, all ten districts in one statement: each district's oldest new order is locked
-- (districts in order; FOR UPDATE sits under the LIMIT, so when a concurrent Delivery deleted the oldest
-- order while this one waited for its lock, the scan goes on to the next oldest: 3.4.1, see txn.rs),
-- deleted, its order and lines delivered, its customer paid the lines' sum. Returns the districts skipped
-- for having no undelivered order (2.7.4.2).
CREATE FUNCTION oltpgen_tpcc_delivery(p_w int4, p_carrier int4) RETURNS int4
LANGUAGE plpgsql AS $$
DECLARE
  v_delivered int4;
BEGIN
  WITH oldest AS (
    SELECT d.d_id, o.no_o_id FROM generate_series(1, 10) AS d(d_id),
      LATERAL (SELECT no_o_id FROM new_order WHERE no_w_id = p_w AND no_d_id = d.d_id
               ORDER BY no_o_id LIMIT 1 FOR UPDATE) AS o),
  n AS (DELETE FROM new_order USING oldest
        WHERE no_w_id = p_w AND no_d_id = oldest.d_id AND new_order.no_o_id = oldest.no_o_id
        RETURNING new_order.no_d_id, new_order.no_o_id),
  o AS (UPDATE orders SET o_carrier_id = p_carrier FROM n
        WHERE o_w_id = p_w AND o_d_id = n.no_d_id AND o_id = n.no_o_id RETURNING o_d_id, o_c_id),
  l AS (UPDATE order_line SET ol_delivery_d = localtimestamp FROM n
        WHERE ol_w_id = p_w AND ol_d_id = n.no_d_id AND ol_o_id = n.no_o_id RETURNING ol_d_id, ol_amount),
  c AS (UPDATE customer SET c_balance = c_balance +
          (SELECT coalesce(sum(l.ol_amount), 0) FROM l WHERE l.ol_d_id = o.o_d_id),
          c_delivery_cnt = c_delivery_cnt + 1
        FROM o WHERE c_w_id = p_w AND c_d_id = o.o_d_id AND c_id = o.o_c_id RETURNING c_id)
  SELECT count(*) INTO v_delivered FROM c;
  RETURN 10 - v_delivered;
END $$;

-- 2.8: Stock-Level (read-only): distinct items of the district's last 20 orders whose home stock is under
-- the threshold.
CREATE FUNCTION oltpgen_tpcc_stock_level(p_w int4, p_d int4, p_threshold int4) RETURNS int8
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT count(DISTINCT s_i_id) FROM district
    JOIN order_line ON ol_w_id = d_w_id AND ol_d_id = d_id AND ol_o_id >= d_next_o_id - 20
      AND ol_o_id < d_next_o_id
    JOIN stock ON s_w_id = d_w_id AND s_i_id = ol_i_id
    WHERE d_w_id = p_w AND d_id = p_d AND s_quantity < p_threshold);
END $$;
