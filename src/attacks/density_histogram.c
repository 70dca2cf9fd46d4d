/*-------------------------------------------------------------------------
 *
 * density_histogram.c
 *	  The joint histogram over the coded schema (see density.h).
 *
 * A cell is one value code per categorical or ordinal column and one of
 * `bins` equal bins over the bounds per continuous column, so the schema
 * has K = prod_j cells_j cells.  With n_x the synthetic rows in x's cell,
 *
 *	p(x) = (n_x + alpha) / (n + alpha K) / prod_{continuous j} w_j,
 *
 * w_j = (upper_j - lower_j) / bins (1 for a constant column): the
 * Laplace-smoothed cell frequency, as a density over the continuous
 * columns; it sums (integrates) to 1 over the schema.  Unlike the
 * independent model it keeps every dependency between columns, and with
 * alpha = 0 it is the empirical distribution of the synthetic cells (a
 * target whose cell holds no synthetic row gets log 0 = -inf).  K is
 * astronomically large for wide schemas, so log(n + alpha K) is taken as
 * log n + log1p(exp(log alpha + log K - log n)) in logs.
 *
 * Only the occupied cells are stored: the distinct cell tuples of the n
 * rows in an open-addressing hash table (linear probing, at most half
 * full), so fitting costs O(n c) and a lookup O(c).
 *
 * IDENTIFICATION
 *	  src/attacks/density_histogram.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "attacks/density.h"
#include "attacks/density_int.h"
#include "util/memory.h"

/*
 * Cell tuple of a raw record into out (c codes); 0 when a categorical or
 * ordinal code is outside its cardinality (no synthetic row can be there).
 */
static int
cell_of(const tapas_dataset_t *syn, size_t bins, const double *x, uint32_t *out)
{
	size_t		j;

	for (j = 0; j < syn->c; j++)
	{
		const tapas_column_spec_t *spec = &syn->cols[j];

		if (spec->kind == TAPAS_COLUMN_CONTINUOUS)
			out[j] = (uint32_t) tapas_density_bin(x[j], spec->lower, spec->upper, bins);
		else if (x[j] >= 0 && x[j] < (double) spec->cardinality)
			out[j] = (uint32_t) x[j];
		else
			return 0;
	}
	return 1;
}

/* FNV-1a over the tuple's codes, then a splitmix64 finaliser */
static uint64_t
hash_cell(const uint32_t *t, size_t c)
{
	uint64_t	h = UINT64_C(14695981039346656037);
	size_t		j;

	for (j = 0; j < c; j++)
		h = (h ^ t[j]) * UINT64_C(1099511628211);
	h ^= h >> 30;
	h *= UINT64_C(0xbf58476d1ce4e5b9);
	h ^= h >> 27;
	return h;
}

/* the slot holding tuple t, or the empty slot where it would go */
static size_t
find_slot(const tapas_density_t *m, const uint32_t *t)
{
	size_t		c = m->syn->c,
				mask = m->n_slots - 1,
				s = (size_t) hash_cell(t, c) & mask;

	while (m->slots[s] != 0 &&
		   memcmp(m->cells + (m->slots[s] - 1) * c, t, c * sizeof(uint32_t)) != 0)
		s = (s + 1) & mask;
	return s;
}

/* log(n + alpha K), K = prod cells_j, without forming K */
static double
log_denominator(const tapas_dataset_t *syn, size_t bins, double alpha)
{
	double		log_n = log((double) syn->n),
				log_k = 0,
				t;
	size_t		j;

	if (alpha == 0)
		return log_n;
	for (j = 0; j < syn->c; j++)
		log_k += log((double) (syn->cols[j].kind == TAPAS_COLUMN_CONTINUOUS ?
							   bins : syn->cols[j].cardinality));
	t = log(alpha) + log_k - log_n;
	return t > 30 ? log_n + t + log1p(exp(-t)) : log_n + log1p(exp(t));
}

/* sum over continuous columns of log w_j */
static double
log_volume(const tapas_dataset_t *syn, size_t bins)
{
	double		v = 0;
	size_t		j;

	for (j = 0; j < syn->c; j++)
	{
		const tapas_column_spec_t *spec = &syn->cols[j];

		if (spec->kind == TAPAS_COLUMN_CONTINUOUS && spec->upper > spec->lower)
			v += log((spec->upper - spec->lower) / (double) bins);
	}
	return v;
}

tapas_density_t *
tapas_density_fit_histogram(const tapas_dataset_t *syn, size_t bins, double alpha)
{
	tapas_density_t *m;
	size_t		c = syn->c,
				i;

	if (syn->n == 0 || bins == 0 || bins > UINT32_MAX || !(alpha >= 0) || isinf(alpha))
		return NULL;
	m = tapas_calloc(1, sizeof(tapas_density_t));
	if (m == NULL)
		return NULL;
	m->kind = TAPAS_DENSITY_HISTOGRAM;
	m->syn = syn;
	m->h = NAN;
	m->bins = bins;
	m->alpha = alpha;
	for (m->n_slots = 16; m->n_slots <= 2 * syn->n; m->n_slots *= 2)
		;
	m->cells = tapas_malloc(syn->n * c * sizeof(uint32_t));
	m->counts = tapas_calloc(syn->n, sizeof(size_t));
	m->slots = tapas_calloc(m->n_slots, sizeof(size_t));
	if (m->cells == NULL || m->counts == NULL || m->slots == NULL)
	{
		tapas_density_free(m);
		return NULL;
	}
	for (i = 0; i < syn->n; i++)
	{
		uint32_t   *t = m->cells + m->n_distinct * c;
		size_t		s;

		/* a code out of range is not a cell: the row counts in n only */
		if (!cell_of(syn, bins, syn->values + i * c, t))
			continue;
		s = find_slot(m, t);
		if (m->slots[s] == 0)
			m->slots[s] = ++m->n_distinct;
		m->counts[m->slots[s] - 1]++;
	}
	m->log_norm = log_denominator(syn, bins, alpha) + log_volume(syn, bins);
	return m;
}

double
tapas_density_histogram_log(const tapas_density_t *m, const double *xraw)
{
	size_t		c = m->syn->c,
				s,
				count;
	uint32_t	stack[64];
	uint32_t   *t = c <= 64 ? stack : tapas_malloc(c * sizeof(uint32_t));
	int			in_schema;

	if (t == NULL)
		return NAN;
	in_schema = cell_of(m->syn, m->bins, xraw, t);
	s = in_schema ? find_slot(m, t) : 0;
	count = in_schema && m->slots[s] != 0 ? m->counts[m->slots[s] - 1] : 0;
	if (t != stack)
		tapas_free(t);
	if (!in_schema)
		return -INFINITY;
	return log((double) count + m->alpha) - m->log_norm;
}
