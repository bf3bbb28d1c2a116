-- A/B variant of oltpgen_tpcc_payment: the warehouse and district updates as dynamic SQL (EXECUTE), which
-- is parsed and planned on every call. Used only by ./run to measure what static SQL saves.
CREATE OR REPLACE FUNCTION oltpgen_tpcc_payment(p_w int4, p_d int4, p_cw int4, p_cd int4, p_c int4, p_last text,
    p_cents int8) RETURNS int4
LANGUAGE plpgsql AS $$
DECLARE
  v_amount numeric := p_cents / 100.0; v_w_name text; v_d_name text; v_ids int4[]; v_c int4 := p_c; v_customer record;
BEGIN
  EXECUTE 'UPDATE warehouse SET w_ytd = w_ytd + $1 WHERE w_id = $2 RETURNING w_name' INTO v_w_name USING v_amount, p_w;
  EXECUTE 'UPDATE district SET d_ytd = d_ytd + $1 WHERE d_w_id = $2 AND d_id = $3 RETURNING d_name'
    INTO v_d_name USING v_amount, p_w, p_d;
  IF p_last IS NOT NULL THEN
    SELECT array_agg(c_id ORDER BY c_first) INTO v_ids FROM customer
      WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last;
    v_c := v_ids[(cardinality(v_ids) + 1) / 2];
  END IF;
  UPDATE customer SET c_balance = c_balance - v_amount, c_ytd_payment = c_ytd_payment + v_amount,
      c_payment_cnt = c_payment_cnt + 1,
      c_data = CASE WHEN c_credit = 'BC' THEN left(concat_ws(' ', c_id, c_d_id, c_w_id, p_d, p_w,
        to_char(v_amount, 'FM99990.00')) || ' ' || c_data, 500) ELSE c_data END
    WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c
    RETURNING c_id INTO v_customer;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'P0002', MESSAGE = 'Payment: no customer matches';
  END IF;
  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (v_customer.c_id, p_cd, p_cw, p_d, p_w, localtimestamp, v_amount, v_w_name || '    ' || v_d_name);
  RETURN v_customer.c_id;
END $$;
