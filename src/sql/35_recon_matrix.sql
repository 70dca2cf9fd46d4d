-- Generic reconstruction from a caller-given 0/1 query matrix (src/pg/recon_matrix.c).

CREATE FUNCTION tapas.reconstruct_matrix(rows bigint[][], answers numeric[], method text,
		s integer DEFAULT 1, noise float8 DEFAULT 0, "binary" boolean DEFAULT true)
	RETURNS TABLE(record bigint, value float8)
	AS 'MODULE_PATHNAME', 'tapas_sql_reconstruct_matrix'
	LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION tapas.reconstruct_matrix(bigint[][], numeric[], text, integer, float8, boolean) IS
'Recovers x from answers = rows * x for an m x n 0/1 matrix rows (one inner array per query); records are 1..n. Methods: omp, nnls, lp, bhtp (binary hard-thresholding pursuit for hundreds of positives, exact answers; s = sparsity bound, noise = Laplace scale of the answer noise, binary = round to 0/1; returns the non-zero values, error if inconsistent with the answers), sparse (every 0/1 x of weight <= s <= 3; error unless exactly one), exact (the records the answers determine, with their values).';

CREATE FUNCTION tapas.reconstruct_matrix(query text, answers numeric[], method text,
		s integer DEFAULT 1, noise float8 DEFAULT 0, "binary" boolean DEFAULT true)
	RETURNS TABLE(record bigint, value float8)
	AS 'MODULE_PATHNAME', 'tapas_sql_reconstruct_matrix_query'
	LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION tapas.reconstruct_matrix(text, numeric[], text, integer, float8, boolean) IS
'Like the array form, with the matrix given by a query returning (query_no, record) pairs: query_no i (1..m) covers record, answers[i] is its answer; records are arbitrary bigint ids.';
