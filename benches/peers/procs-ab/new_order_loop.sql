-- A/B variant of oltpgen_tpcc_new_order (same signature, same effects): a loop per line (the shape of
-- HammerDB's Oracle-compatible New-Order; its PostgreSQL one is set-based over arrays too), one item
-- read, one stock update and one order-line insert per line, instead of one statement per pass over the
-- lines as arrays. Used only by ./run to measure what the set-based version saves.
CREATE OR REPLACE FUNCTION oltpgen_tpcc_new_order(p_w int4, p_d int4, p_c int4, p_items int4[], p_supply int4[],
    p_qty int4[], p_pass int4[], p_passes int4, p_all_local int4) RETURNS int4
LANGUAGE plpgsql AS $$
DECLARE
  v_o int4; v_d_tax numeric; v_w_tax numeric; v_customer record; v_price numeric; v_dist text;
  v_lines int4 := cardinality(p_items); v_entered int4 := 0;
BEGIN
  UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d
    RETURNING d_next_o_id - 1, d_tax INTO v_o, v_d_tax;
  SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w;
  SELECT c_discount, c_last, c_credit INTO v_customer FROM customer
    WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;
  FOR k IN 1 .. v_lines LOOP
    SELECT i_price INTO v_price FROM item WHERE i_id = p_items[k];
    UPDATE stock SET
      s_quantity = CASE WHEN s_quantity >= p_qty[k] + 10 THEN s_quantity - p_qty[k] ELSE s_quantity - p_qty[k] + 91 END,
      s_ytd = s_ytd + p_qty[k], s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + (p_supply[k] <> p_w)::int4
    WHERE s_i_id = p_items[k] AND s_w_id = p_supply[k]
    RETURNING CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
      WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08
      WHEN 9 THEN s_dist_09 ELSE s_dist_10 END INTO v_dist;
    IF v_price IS NOT NULL THEN
      INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d,
          ol_quantity, ol_amount, ol_dist_info)
        VALUES (v_o, p_d, p_w, k, p_items[k], p_supply[k], NULL, p_qty[k], p_qty[k] * v_price, v_dist);
      v_entered := v_entered + 1;
    END IF;
  END LOOP;
  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (v_o, p_d, p_w, p_c, localtimestamp, NULL, v_lines, p_all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o, p_d, p_w);
  IF v_entered < v_lines THEN
    RAISE EXCEPTION USING ERRCODE = 'OLRB1', MESSAGE = 'New-Order rolled back: an item is unused (2.4.2.3)';
  END IF;
  RETURN v_o;
END $$;
