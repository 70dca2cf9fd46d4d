/*-------------------------------------------------------------------------
 *
 * design.c
 *	  The design dispatcher: construction with the k rewrite, membership,
 *	  coverage and decoding for the hadamard, bch and bernoulli methods.
 *
 * Construction counts how many records each base row covers (closed form
 * for Hadamard, one pass over the records per row otherwise), complements
 * the rows below k and appends the total query when needed (design.h).
 * Membership is O(1): a popcount (Hadamard), one antilog lookup (BCH) or
 * one splitmix64 hash with a precomputed row key (Bernoulli).
 *
 * Decoding first undoes the complements, b_r = T - b'_r, then calls the
 * method's decoder.  For BCH the decoded support is re-checked against
 * every integer answer (its count in each query), which catches the
 * miscorrections a parity decoder cannot see when more than s records are
 * positive.
 *
 * IDENTIFICATION
 *	  src/recon/design.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "util/memory.h"
#include "recon/design.h"

int
tapas_design_method_from_name(const char *name)
{
	if (name == NULL)
		return -1;
	if (strcmp(name, "hadamard") == 0)
		return TAPAS_DESIGN_HADAMARD;
	if (strcmp(name, "bch") == 0)
		return TAPAS_DESIGN_BCH;
	if (strcmp(name, "bernoulli") == 0)
		return TAPAS_DESIGN_BERNOULLI;
	return -1;
}

/* the splitmix64 finaliser (Steele, Lea and Flood, OOPSLA 2014) */
static inline uint64_t
design_mix(uint64_t z)
{
	z += UINT64_C(0x9e3779b97f4a7c15);
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

uint64_t
tapas_design_bernoulli_bits(uint64_t seed, int64_t row, int64_t record)
{
	return design_mix(design_mix(seed ^ design_mix((uint64_t) row)) ^
					  (uint64_t) record);
}

/* rows of the Bernoulli design: ceil(2 s log2(n / s)), in [s + 1, n] */
static int
design_bernoulli_rows(int64_t n, int s)
{
	double		m = n > s ? ceil(2.0 * s * log2((double) n / s)) : (double) n;

	if (m < s + 1)
		m = s + 1;
	if (m > n)
		m = (double) n;
	return (int) m;
}

/* base row r covers record j (1..n assumed), before any complement */
static inline int
design_base_member(const tapas_design_t *d, int r, int64_t j)
{
	switch (d->method)
	{
		case TAPAS_DESIGN_HADAMARD:
			return tapas_hadamard_member(d->n, r, j);
		case TAPAS_DESIGN_BCH:
			return tapas_bch_member(d->bch, r, j);
		case TAPAS_DESIGN_BERNOULLI:
			return (int) (design_mix(d->row_key[r] ^ (uint64_t) j) & 1);
	}
	return 0;
}

int
tapas_design_base_member(const tapas_design_t *d, int r, int64_t j)
{
	return design_base_member(d, r, j);
}

int
tapas_design_query_base_member(const tapas_design_t *d, int q, int64_t j)
{
	if (q < d->m)
		return design_base_member(d, q, j);
	return (int) (design_mix(d->extra_key[q - d->m] ^ (uint64_t) j) & 1);
}

int
tapas_design_query_complemented(const tapas_design_t *d, int q)
{
	if (q < d->m)
		return d->complemented != NULL && d->complemented[q];
	return d->extra_comp != NULL && d->extra_comp[q - d->m];
}

int
tapas_design_member(const tapas_design_t *d, int query, int64_t record)
{
	int			in;

	if (query < 0 || query >= tapas_design_queries(d) || record < 1 || record > d->n)
		return 0;
	if (query == d->total_query)
		return 1;
	in = tapas_design_query_base_member(d, query, record);
	if (tapas_design_query_complemented(d, query))
		in = !in;
	return in;
}

/* ----------------------------------------------------------------
 *		construction
 * ----------------------------------------------------------------
 */

/* records covered by each base row into cover[0..base_rows-1] */
static tapas_status
design_base_coverage(tapas_design_t *d, int64_t *cover,
					 const tapas_progress_t *progress)
{
	int			r;
	int64_t		j;

	switch (d->method)
	{
		case TAPAS_DESIGN_HADAMARD:
			for (r = 0; r < d->base_rows; r++)
				cover[r] = tapas_hadamard_row_coverage(d->n, r);
			return TAPAS_OK;
		case TAPAS_DESIGN_BCH:
			return tapas_bch_coverage(d->bch, cover, progress);
		case TAPAS_DESIGN_BERNOULLI:
			if ((int64_t) d->base_rows * d->n > TAPAS_DESIGN_MAX_WORK)
				return TAPAS_ELIMIT;
			for (r = 0; r < d->base_rows; r++)
			{
				if (tapas_progress_poll(progress, (double) r / d->base_rows))
					return TAPAS_ECANCELED;
				cover[r] = 0;
				for (j = 1; j <= d->n; j++)
					cover[r] += design_mix(d->row_key[r] ^ (uint64_t) j) & 1;
			}
			return TAPAS_OK;
	}
	return TAPAS_EINVAL;
}

/*
 * Complements the base rows below k, appends the total query if needed,
 * and fills coverage (m entries) with min and mean.  cover holds the base
 * coverage and has room for base_rows + 1 entries.
 */
static tapas_status
design_apply_k(tapas_design_t *d, int64_t *cover, const char **reason)
{
	int			r,
				any = 0;
	double		sum = 0;

	for (r = 0; r < d->base_rows; r++)
	{
		if (cover[r] >= d->k)
			continue;
		if (d->n - cover[r] < d->k)
		{
			*reason = "a query and its complement both cover fewer than k records";
			return TAPAS_EINVAL;
		}
		if (d->complemented == NULL)
		{
			d->complemented = tapas_calloc(d->base_rows, 1);
			if (d->complemented == NULL)
				return TAPAS_ENOMEM;
		}
		d->complemented[r] = 1;
		cover[r] = d->n - cover[r];
		any = 1;
	}
	if (any && d->method != TAPAS_DESIGN_HADAMARD)
	{
		d->total_query = d->base_rows;
		d->m = d->base_rows + 1;
		cover[d->total_query] = d->n;
	}
	d->min_coverage = cover[0];
	for (r = 0; r < d->m; r++)
	{
		if (cover[r] < d->min_coverage)
			d->min_coverage = cover[r];
		sum += (double) cover[r];
	}
	d->mean_coverage = sum / d->m;
	d->coverage = cover;
	return TAPAS_OK;
}

/* method-specific part of the construction: rows and tables */
static tapas_status
design_build_base(tapas_design_t *d, const char **reason)
{
	tapas_status st = TAPAS_OK;
	int			r;

	switch (d->method)
	{
		case TAPAS_DESIGN_HADAMARD:
			d->base_rows = (int) tapas_hadamard_order(d->n);
			if (d->base_rows == 0)
			{
				*reason = "n is above 2^24 for the hadamard design";
				return TAPAS_EINVAL;
			}
			d->total_query = 0;	/* row 0 of H' is the total */
			return TAPAS_OK;
		case TAPAS_DESIGN_BCH:
			d->bch = tapas_bch_create(d->n, d->s, &st);
			if (d->bch == NULL)
			{
				if (st == TAPAS_EINVAL)
					*reason = "bch needs n <= 2^24 - 1 and 2 s <= 2^q - 1 (s <= 4096)";
				return st;
			}
			d->base_rows = d->bch->m;
			return TAPAS_OK;
		case TAPAS_DESIGN_BERNOULLI:
			d->base_rows = design_bernoulli_rows(d->n, d->s);
			d->row_key = tapas_malloc(d->base_rows * sizeof(uint64_t));
			if (d->row_key == NULL)
				return TAPAS_ENOMEM;
			for (r = 0; r < d->base_rows; r++)
				d->row_key[r] = design_mix(d->seed ^ design_mix((uint64_t) r + 1));
			return TAPAS_OK;
	}
	*reason = "unknown design method";
	return TAPAS_EINVAL;
}

tapas_design_t *
tapas_design_create(int method, int64_t n, int s, int64_t k, uint64_t seed,
					int want_coverage, const tapas_progress_t *progress,
					tapas_status *status, const char **reason)
{
	tapas_design_t *d;
	int64_t    *cover = NULL;
	const char *dummy;

	if (reason == NULL)
		reason = &dummy;
	*reason = NULL;
	*status = TAPAS_EINVAL;
	if (method < TAPAS_DESIGN_HADAMARD || method > TAPAS_DESIGN_BERNOULLI)
		*reason = "unknown design method";
	else if (n < 1 || n > TAPAS_DESIGN_MAX_N)
		*reason = "n must be between 1 and 2^24";
	else if (s < 1 || s > TAPAS_BCH_MAX_S)
		*reason = "s must be between 1 and 4096";
	else if (k < 0 || k > n)
		*reason = "k must be between 0 and n";
	if (*reason != NULL)
		return NULL;
	*status = TAPAS_ENOMEM;
	d = tapas_calloc(1, sizeof(tapas_design_t));
	if (d == NULL)
		return NULL;
	d->method = (tapas_design_method) method;
	d->n = n;
	d->s = s;
	d->k = k;
	d->seed = seed;
	d->total_query = -1;
	d->min_coverage = -1;
	d->mean_coverage = -1;
	*status = design_build_base(d, reason);
	if (*status != TAPAS_OK)
		goto fail;
	d->m = d->base_rows;
	if (k > 0 || want_coverage)
	{
		*status = TAPAS_ENOMEM;
		cover = tapas_malloc(((size_t) d->base_rows + 1) * sizeof(int64_t));
		if (cover == NULL)
			goto fail;
		*status = design_base_coverage(d, cover, progress);
		if (*status == TAPAS_OK)
			*status = design_apply_k(d, cover, reason);
		if (*status != TAPAS_OK)
		{
			if (*status == TAPAS_ELIMIT)
				*reason = "counting the coverage of this design takes too long";
			tapas_free(cover);
			goto fail;
		}
	}
	*status = TAPAS_OK;
	return d;

fail:
	tapas_design_free(d);
	return NULL;
}

void
tapas_design_free(tapas_design_t *d)
{
	if (d == NULL)
		return;
	tapas_bch_free(d->bch);
	tapas_free(d->complemented);
	tapas_free(d->coverage);
	tapas_free(d->row_key);
	tapas_free(d->extra_key);
	tapas_free(d->extra_comp);
	tapas_free(d);
}

/* ----------------------------------------------------------------
 *		the endless Bernoulli design
 * ----------------------------------------------------------------
 */

/* room for want extra rows (geometric growth; new flags zeroed) */
static tapas_status
design_extra_reserve(tapas_design_t *d, int want)
{
	int			cap = d->extra_cap > 0 ? d->extra_cap : 64;
	uint64_t   *key;
	uint8_t    *comp;

	if (want <= d->extra_cap)
		return TAPAS_OK;
	while (cap < want)
		cap = cap > TAPAS_DESIGN_MAX_EXTRA / 2 ? TAPAS_DESIGN_MAX_EXTRA : cap * 2;
	key = tapas_realloc(d->extra_key, (size_t) cap * sizeof(uint64_t));
	if (key == NULL)
		return TAPAS_ENOMEM;
	d->extra_key = key;
	comp = tapas_realloc(d->extra_comp, (size_t) cap);
	if (comp == NULL)
		return TAPAS_ENOMEM;
	memset(comp + d->extra_cap, 0, (size_t) (cap - d->extra_cap));
	d->extra_comp = comp;
	d->extra_cap = cap;
	return TAPAS_OK;
}

tapas_status
tapas_design_extend(tapas_design_t *d, int queries,
					const tapas_progress_t *progress, const char **reason)
{
	const char *dummy;
	int			want = queries - d->m;
	tapas_status st;

	if (reason == NULL)
		reason = &dummy;
	if (want <= d->extra)
		return TAPAS_OK;
	if (d->method != TAPAS_DESIGN_BERNOULLI)
	{
		*reason = "only the bernoulli design has queries beyond its size";
		return TAPAS_EINVAL;
	}
	if (want > TAPAS_DESIGN_MAX_EXTRA)
	{
		*reason = "a bernoulli design has at most 2^20 queries beyond its recommended size";
		return TAPAS_EINVAL;
	}
	if (d->k > 0 && (int64_t) want * d->n > TAPAS_DESIGN_MAX_WORK)
		return TAPAS_ELIMIT;
	st = design_extra_reserve(d, want);
	if (st != TAPAS_OK)
		return st;
	for (; d->extra < want; d->extra++)
	{
		uint64_t	key = design_mix(d->seed ^ design_mix((uint64_t) d->base_rows + 1 + d->extra));
		int64_t		cover = 0,
					j;

		d->extra_key[d->extra] = key;
		if (d->k == 0)
			continue;
		/* the k rewrite of design_apply_k, for this row alone */
		if (tapas_progress_poll(progress, (double) d->extra / want))
			return TAPAS_ECANCELED;
		for (j = 1; j <= d->n; j++)
			cover += design_mix(key ^ (uint64_t) j) & 1;
		if (cover < d->k && d->n - cover < d->k)
		{
			*reason = "a query and its complement both cover fewer than k records";
			return TAPAS_EINVAL;
		}
		d->extra_comp[d->extra] = cover < d->k;
	}
	return TAPAS_OK;
}
