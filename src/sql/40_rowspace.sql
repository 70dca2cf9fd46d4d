-- The row-space test by hand: which records a set of queries determines
-- (src/pg/rowspace.c, kernel src/recon/rowspace.c).  Admin only.

CREATE FUNCTION tapas.rowspace_determined(rows bigint[][])
	RETURNS SETOF integer
	AS 'MODULE_PATHNAME', 'tapas_sql_rowspace_determined'
	LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION tapas.rowspace_determined(bigint[][]) IS
'Records (columns 1..n of the m x n 0/1 matrix rows, one inner array per SUM/COUNT query) whose value the answers to those queries determine by linear algebra, whatever the data (Chin''s criterion: e_j in the row space). Decided modulo a fresh random prime near 2^62: a determined record is missed with probability below about 1e-10. Admin only.';

CREATE FUNCTION tapas.rowspace_trace(rows bigint[][])
	RETURNS TABLE(query integer, record integer)
	AS 'MODULE_PATHNAME', 'tapas_sql_rowspace_trace'
	LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION tapas.rowspace_trace(bigint[][]) IS
'Like tapas.rowspace_determined, with the query (1..m, in array order) at which each record first becomes determined: the query an auditor in deny mode would refuse. Admin only.';

REVOKE ALL ON FUNCTION tapas.rowspace_determined(bigint[][]) FROM PUBLIC;
REVOKE ALL ON FUNCTION tapas.rowspace_trace(bigint[][]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.rowspace_determined(bigint[][]) TO tapas_admin;
GRANT EXECUTE ON FUNCTION tapas.rowspace_trace(bigint[][]) TO tapas_admin;
