-- Query designs for reconstruction attacks and their decoders (src/pg/design.c).

CREATE FUNCTION tapas.design_size(method text, n bigint, s integer DEFAULT 1,
                                  k bigint DEFAULT 0)
RETURNS integer
AS 'MODULE_PATHNAME', 'tapas_sql_design_size'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION tapas.design_size(text, bigint, integer, bigint) IS
'Number of queries of a reconstruction design (method hadamard, bch or bernoulli) for n records and sparsity s, every query covering at least k records';

CREATE FUNCTION tapas.design_member(method text, n bigint, s integer,
                                    query_no integer, record bigint,
                                    k bigint DEFAULT 0, seed bigint DEFAULT 0)
RETURNS boolean
AS 'MODULE_PATHNAME', 'tapas_sql_design_member'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

COMMENT ON FUNCTION tapas.design_member(text, bigint, integer, integer, bigint, bigint, bigint) IS
'Whether query query_no (1..design_size) of a reconstruction design covers record (1..n); false for records outside 1..n; for WHERE clauses';

CREATE FUNCTION tapas.design_info(method text, n bigint, s integer DEFAULT 1,
                                  k bigint DEFAULT 0, seed bigint DEFAULT 0,
                                  OUT queries integer, OUT min_coverage bigint,
                                  OUT mean_coverage double precision)
RETURNS record
AS 'MODULE_PATHNAME', 'tapas_sql_design_info'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION tapas.design_info(text, bigint, integer, bigint, bigint) IS
'Number of queries and the minimum and mean number of records per query of a reconstruction design';

CREATE FUNCTION tapas.reconstruct(method text, n bigint, answers numeric[],
                                  s integer DEFAULT 1, k bigint DEFAULT 0,
                                  seed bigint DEFAULT 0,
                                  noise double precision DEFAULT 0)
RETURNS TABLE(record bigint, value double precision)
AS 'MODULE_PATHNAME', 'tapas_sql_reconstruct'
LANGUAGE C IMMUTABLE PARALLEL SAFE ROWS 10;

COMMENT ON FUNCTION tapas.reconstruct(text, bigint, numeric[], integer, bigint, bigint, double precision) IS
'Decodes the answers of a reconstruction design (one per query, in query order): every record for hadamard, the nonzero records for bch and bernoulli; raises an error when the answers cannot be decoded';
