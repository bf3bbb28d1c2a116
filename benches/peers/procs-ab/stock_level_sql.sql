-- A/B variant of oltpgen_tpcc_stock_level: the same query as a SQL-language function, which PostgreSQL 15
-- plans on every call (PL/pgSQL keeps the plan for the session). Used only by ./run.
CREATE OR REPLACE FUNCTION oltpgen_tpcc_stock_level(p_w int4, p_d int4, p_threshold int4) RETURNS int8
LANGUAGE sql STABLE AS $$
  SELECT count(DISTINCT s_i_id) FROM district
    JOIN order_line ON ol_w_id = d_w_id AND ol_d_id = d_id AND ol_o_id >= d_next_o_id - 20
      AND ol_o_id < d_next_o_id
    JOIN stock ON s_w_id = d_w_id AND s_i_id = ol_i_id
    WHERE d_w_id = p_w AND d_id = p_d AND s_quantity < p_threshold
$$;
