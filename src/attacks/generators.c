/*-------------------------------------------------------------------------
 *
 * generators.c
 *	  The raw and marginals generators, and dataset materialisation.
 *
 * raw draws a uniform n_syn-subset by a partial Fisher-Yates shuffle of the
 * row numbers; marginals draws n_syn * m independent row numbers.
 *
 * IDENTIFICATION
 *	  src/attacks/generators.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "attacks/generators.h"
#include "attacks/threat_model.h"

/* rows fetched ahead by tapas_gen_materialise */
#define MATERIALISE_AHEAD 16

void
tapas_gen_materialise(const double *pool, size_t m, const double *target,
					  const int32_t *rows, size_t n_rows, double *out)
{
	size_t		i;

	for (i = 0; i < n_rows; i++)
	{
		/* target t (row code -1 - t) is row t of the targets */
		const double *src = rows[i] < 0 ? target + (size_t) (-1 - (int64_t) rows[i]) * m :
			pool + (size_t) rows[i] * m;

		/*
		 * the rows are scattered over the pool (50,000 census rows: 6.8 MB),
		 * so each copy waited for memory: fetch the row 16 ahead meanwhile
		 * (8 kept fewer lines in flight: a fifth more time in the copies)
		 */
		if (i + MATERIALISE_AHEAD < n_rows && rows[i + MATERIALISE_AHEAD] >= 0)
		{
			const char *next = (const char *) (pool + (size_t) rows[i + MATERIALISE_AHEAD] * m);
			size_t		o;

			for (o = 0; o < m * sizeof(double); o += 64)
				__builtin_prefetch(next + o);
			__builtin_prefetch(next + m * sizeof(double) - 1);
		}
		memcpy(out + i * m, src, m * sizeof(double));
	}
}

static tapas_status
gen_raw(const double *train, size_t n, size_t m, size_t n_syn,
		tapas_rng_t *rng, size_t *scratch, double *out)
{
	size_t		i;

	if (n_syn > n || scratch == NULL)
		return TAPAS_EINVAL;
	if (n_syn == n)
	{
		memcpy(out, train, n * m * sizeof(double));
		return TAPAS_OK;
	}
	for (i = 0; i < n; i++)
		scratch[i] = i;
	for (i = 0; i < n_syn; i++)
	{
		size_t		j = i + tapas_rng_below(rng, n - i);
		size_t		t = scratch[i];

		scratch[i] = scratch[j];
		scratch[j] = t;
		memcpy(out + i * m, train + scratch[i] * m, m * sizeof(double));
	}
	return TAPAS_OK;
}

static void
gen_marginals(const double *train, size_t n, size_t m, size_t n_syn,
			  tapas_rng_t *rng, double *out)
{
	size_t		i,
				j;

	for (i = 0; i < n_syn; i++)
		for (j = 0; j < m; j++)
			out[i * m + j] = train[tapas_rng_below(rng, n) * m + j];
}

tapas_status
tapas_gen_run(int generator, const double *train, size_t n, size_t m,
			  size_t n_syn, tapas_rng_t *rng, size_t *scratch, double *out)
{
	if (n == 0 || m == 0)
		return TAPAS_EINVAL;
	switch (generator)
	{
		case TAPAS_GEN_RAW:
			return gen_raw(train, n, m, n_syn, rng, scratch, out);
		case TAPAS_GEN_MARGINALS:
			gen_marginals(train, n, m, n_syn, rng, out);
			return TAPAS_OK;
	}
	return TAPAS_EINVAL;
}
