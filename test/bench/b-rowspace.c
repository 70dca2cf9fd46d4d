/*
 * b-rowspace.c
 *	  Benchmark of the row-space kernel (src/recon/rowspace.c): time added
 *	  per answered query at n = 100,000 with 100 and 1,000 logged rows, for
 *	  (a) benign GROUP BY workloads over three quasi-identifiers and (b) an
 *	  attack design of Bernoulli(1/2) rows; memory; and the ratio against the
 *	  straightforward dense incremental RREF modulo the same prime, both
 *	  run in this process at n = 4,096 where the baseline fits.
 *
 * A "query" is one statement: a GROUP BY produces one row per answered
 * cell (cells below k = 10 are not answered), a Bernoulli query one row.
 * Timed: tapas_rowspace_trial + commit (the allow path) and trial +
 * rollback (the deny path) of the next queries once the ledger holds the
 * target number of rows.  Seeds are fixed; figures are medians.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <flint/nmod_vec.h>
#include <flint/ulong_extras.h>

#include "bench.h"
#include "util/memory.h"
#include "util/rng.h"
#include "recon/rowspace.h"

#define K_THRESHOLD	10
#define NMEASURE	15

typedef struct batch
{
	uint32_t   *ids;
	size_t	   *off;
	size_t		nrows;
} batch_t;

typedef struct workload
{
	uint32_t	n;
	int			benign;			/* 0: Bernoulli rows */
	int			card[3];		/* quasi-identifier cardinalities */
	uint16_t   *qi[3];			/* [n] quasi-identifier values */
	tapas_rng_t rng;
	int			differences;	/* measured queries: last row + 1 record */
	int			measuring;		/* set by measure() while timing */
	uint32_t   *last;			/* [n] the last Bernoulli row, ascending */
	size_t		lastlen;
} workload_t;

/* ---------------------------------------------------------------------
 * Workloads
 * ---------------------------------------------------------------------
 */

/* quasi-identifiers: age bands roughly bell-shaped, sex uniform, region
 * Zipf(1) */
static void
workload_init(workload_t *w, uint32_t n, int benign, int c0, int c1, int c2,
			  uint64_t seed)
{
	uint32_t	j;
	int			c;

	memset(w, 0, sizeof(*w));
	w->n = n;
	w->benign = benign;
	w->card[0] = c0;
	w->card[1] = c1;
	w->card[2] = c2;
	tapas_rng_seed(&w->rng, seed);
	if (!benign)
		return;
	for (c = 0; c < 3; c++)
		w->qi[c] = malloc(n * sizeof(uint16_t));
	for (j = 0; j < n; j++)
	{
		double		a = (tapas_rng_uniform(&w->rng) + tapas_rng_uniform(&w->rng) +
						 tapas_rng_uniform(&w->rng)) / 3;
		double		h = 0,
					acc = 0,
					u;
		int			r;

		for (r = 1; r <= c2; r++)
			h += 1.0 / r;
		u = tapas_rng_uniform(&w->rng) * h;
		w->qi[0][j] = (uint16_t) (a * c0);
		w->qi[1][j] = (uint16_t) tapas_rng_below(&w->rng, c1);
		/* inverse CDF of Zipf(1) over 1..c2 */
		for (r = 1; r < c2; r++)
		{
			acc += 1.0 / r;
			if (acc >= u)
				break;
		}
		w->qi[2][j] = (uint16_t) (r - 1);
	}
}

/* a Bernoulli(1/2) row */
static void
gen_bernoulli(workload_t *w, batch_t *b)
{
	size_t		len = 0;
	uint32_t	j;

	for (j = 0; j < w->n; j += 64)
	{
		uint64_t	bits = tapas_rng_u64(&w->rng);
		uint32_t	k;

		for (k = 0; k < 64 && j + k < w->n; k++)
			if ((bits >> k) & 1)
				b->ids[len++] = j + k;
	}
	b->off[0] = 0;
	b->off[1] = len;
	b->nrows = 1;
	if (w->last)
		memcpy(w->last, b->ids, (w->lastlen = len) * sizeof(uint32_t));
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *) a,
				y = *(const uint32_t *) b;

	return (x > y) - (x < y);
}

/* a difference query: the last Bernoulli row plus one record outside it */
static void
gen_difference(workload_t *w, batch_t *b)
{
	uint32_t	j;

	do
		j = (uint32_t) tapas_rng_below(&w->rng, w->n);
	while (bsearch(&j, w->last, w->lastlen, sizeof(uint32_t), cmp_u32));
	memcpy(b->ids, w->last, w->lastlen * sizeof(uint32_t));
	b->ids[w->lastlen] = j;
	b->off[0] = 0;
	b->off[1] = w->lastlen + 1;
	b->nrows = 1;
}

/*
 * The group key of record j over the quasi-identifiers in mask; false if
 * the WHERE on column wcol (if >= 0) excludes the record.
 */
static int
group_key(const workload_t *w, int mask, int wcol, int wval, uint32_t j,
		  uint32_t *key)
{
	int			c;

	if (wcol >= 0 && w->qi[wcol][j] != wval)
		return 0;
	for (*key = 0, c = 0; c < 3; c++)
		if (mask & (1 << c))
			*key = *key * w->card[c] + w->qi[c][j];
	return 1;
}

/*
 * One GROUP BY over a random nonempty subset of the quasi-identifiers,
 * with probability 1/2 restricted by WHERE on one other column to the
 * value of a random record; one row per cell with at least k records.
 */
static void
gen_groupby(workload_t *w, batch_t *b, uint32_t *count, uint32_t *cursor)
{
	int			mask = 1 + (int) tapas_rng_below(&w->rng, 7);
	int			wcol = -1,
				wval = 0,
				c;
	uint32_t	j,
				key,
				nkeys = 1;
	size_t		len = 0;

	if (mask != 7 && tapas_rng_below(&w->rng, 2))
	{
		do
			wcol = (int) tapas_rng_below(&w->rng, 3);
		while (mask & (1 << wcol));
		wval = w->qi[wcol][tapas_rng_below(&w->rng, w->n)];
	}
	for (c = 0; c < 3; c++)
		if (mask & (1 << c))
			nkeys *= w->card[c];
	memset(count, 0, nkeys * sizeof(uint32_t));
	/* counting sort of the qualifying records by group key */
	for (j = 0; j < w->n; j++)
		if (group_key(w, mask, wcol, wval, j, &key))
			count[key]++;
	b->nrows = 0;
	for (key = 0; key < nkeys; key++)
	{
		cursor[key] = (uint32_t) len;
		if (count[key] >= K_THRESHOLD)
		{
			b->off[b->nrows++] = len;
			len += count[key];
		}
		else
			count[key] = 0;		/* not answered */
	}
	b->off[b->nrows] = len;
	for (j = 0; j < w->n; j++)
		if (group_key(w, mask, wcol, wval, j, &key) && count[key])
			b->ids[cursor[key]++] = j;
}

static uint32_t *gb_count,
		   *gb_cursor;

static void
next_query(workload_t *w, batch_t *b)
{
	if (w->benign)
		gen_groupby(w, b, gb_count, gb_cursor);
	else if (w->differences && w->measuring)
		gen_difference(w, b);
	else
		gen_bernoulli(w, b);
}

/* ---------------------------------------------------------------------
 * Baseline: the dense incremental RREF modulo p (one row at a time)
 * ---------------------------------------------------------------------
 */

typedef struct dense
{
	uint32_t	n,
				r;
	nmod_t		mod;
	uint64_t   *R;				/* [cap][n] rows in RREF */
	int32_t    *rowof;			/* [n] row with that pivot, or -1 */
	uint32_t   *piv;			/* pivot column of each row */
	uint32_t   *wt;				/* nonzeros of each row */
	uint64_t   *v;				/* scratch row */
	uint32_t	ndet;
} dense_t;

static void
dense_init(dense_t *d, uint32_t n, uint32_t cap, uint64_t p)
{
	uint32_t	j;

	memset(d, 0, sizeof(*d));
	d->n = n;
	nmod_init(&d->mod, p);
	d->R = malloc((size_t) cap * n * sizeof(uint64_t));
	d->rowof = malloc(n * sizeof(int32_t));
	d->piv = malloc(cap * sizeof(uint32_t));
	d->wt = malloc(cap * sizeof(uint32_t));
	d->v = malloc(n * sizeof(uint64_t));
	for (j = 0; j < n; j++)
		d->rowof[j] = -1;
}

static uint32_t
weight(const uint64_t *v, uint32_t n)
{
	uint32_t	j,
				w = 0;

	for (j = 0; j < n; j++)
		w += v[j] != 0;
	return w;
}

/* add_query of section 2.2 */
static void
dense_add(dense_t *d, const uint32_t *q, size_t len)
{
	uint64_t	p = d->mod.n;
	uint64_t   *v = d->v;
	size_t		i;
	uint32_t	c,
				k;

	memset(v, 0, d->n * sizeof(uint64_t));
	for (i = 0; i < len; i++)
		v[q[i]] = 1;
	for (i = 0; i < len; i++)
	{
		int32_t		k2 = d->rowof[q[i]];

		if (k2 >= 0 && v[q[i]] != 0)
			_nmod_vec_scalar_addmul_nmod(v, d->R + (size_t) k2 * d->n, d->n,
										 n_negmod(v[q[i]], p), d->mod);
	}
	for (c = 0; c < d->n && v[c] == 0; c++)
		;
	if (c == d->n)
		return;
	_nmod_vec_scalar_mul_nmod(v, v, d->n, n_invmod(v[c], p), d->mod);
	for (k = 0; k < d->r; k++)
	{
		uint64_t   *row = d->R + (size_t) k * d->n;

		if (row[c] != 0)
		{
			_nmod_vec_scalar_addmul_nmod(row, v, d->n, n_negmod(row[c], p), d->mod);
			d->wt[k] = weight(row, d->n);
			d->ndet += d->wt[k] == 1;
		}
	}
	memcpy(d->R + (size_t) d->r * d->n, v, d->n * sizeof(uint64_t));
	d->wt[d->r] = weight(v, d->n);
	d->ndet += d->wt[d->r] == 1;
	d->piv[d->r] = c;
	d->rowof[c] = (int32_t) d->r++;
}

static void
dense_free(dense_t *d)
{
	free(d->R);
	free(d->rowof);
	free(d->piv);
	free(d->wt);
	free(d->v);
}

/* ---------------------------------------------------------------------
 * Driver
 * ---------------------------------------------------------------------
 */

typedef struct figures
{
	double		trial_ms;		/* median trial per query */
	double		rollback_ms;	/* median rollback after it */
	double		max_ms;			/* worst trial */
	double		rows_per_query;
	double		dense_ms;		/* median dense add per query (or -1) */
	uint32_t	rank,
				natoms;
	size_t		memory;
	size_t		determined;
	long		dense_determined;	/* -1 without baseline */
	double		indep_per_query;	/* independent rows per measured query */
	double		block_per_query;	/* block searches per query */
	double		newly_per_query;	/* records a measured query determines */
} figures_t;

static void
batch_copy(batch_t *dst, const batch_t *src)
{
	size_t		len = src->off[src->nrows];

	dst->nrows = src->nrows;
	dst->off = malloc((src->nrows + 1) * sizeof(size_t));
	dst->ids = malloc((len + 1) * sizeof(uint32_t));
	memcpy(dst->off, src->off, (src->nrows + 1) * sizeof(size_t));
	memcpy(dst->ids, src->ids, len * sizeof(uint32_t));
}

/*
 * Fills the ledger to exactly target rows (the last statement's cells are
 * cut), then times NMEASURE further statements as trial + rollback, so the
 * ledger stays at target; the baseline then adds the same statements.
 */
static void
measure(tapas_rowspace_t *rs, dense_t *d, workload_t *w, batch_t *b,
		size_t *logged, size_t target, figures_t *f)
{
	double		tt[NMEASURE],
				tr[NMEASURE],
				td[NMEASURE];
	batch_t		mb[NMEASURE];
	const uint32_t *newly;
	size_t		count,
				rows = 0,
				i;
	int			q;
	tapas_rowspace_stats_t st0,
				st1;
	size_t		newly_total = 0;

	while (*logged < target)
	{
		next_query(w, b);
		if (b->nrows > target - *logged)
			b->nrows = target - *logged;
		if (tapas_rowspace_add(rs, b->ids, b->off, b->nrows, NULL, &newly, &count) != TAPAS_OK)
			abort();
		for (i = 0; d && i < b->nrows; i++)
			dense_add(d, b->ids + b->off[i], b->off[i + 1] - b->off[i]);
		*logged += b->nrows;
	}
	f->rank = tapas_rowspace_rank(rs);
	f->natoms = tapas_rowspace_natoms(rs);
	tapas_rowspace_determined(rs, &f->determined);
	f->dense_determined = d ? (long) d->ndet : -1;
	f->max_ms = 0;
	w->measuring = 1;
	tapas_rowspace_stats(rs, &st0);
	for (q = 0; q < NMEASURE; q++)
	{
		double		t0;

		next_query(w, b);
		batch_copy(&mb[q], b);
		rows += b->nrows;
		t0 = bench_ms();
		if (tapas_rowspace_trial(rs, b->ids, b->off, b->nrows, NULL, &newly, &count) != TAPAS_OK)
			abort();
		tt[q] = bench_ms() - t0;
		newly_total += count;
		t0 = bench_ms();
		tapas_rowspace_rollback(rs);
		tr[q] = bench_ms() - t0;
		if (tt[q] > f->max_ms)
			f->max_ms = tt[q];
	}
	w->measuring = 0;
	f->memory = tapas_rowspace_memory(rs);
	tapas_rowspace_stats(rs, &st1);
	f->indep_per_query = (double) (st1.independent - st0.independent) / NMEASURE;
	f->block_per_query = (double) (st1.block_searches - st0.block_searches) / NMEASURE;
	f->newly_per_query = (double) newly_total / NMEASURE;
	for (q = 0; q < NMEASURE; q++)
	{
		double		t0 = bench_ms();

		for (i = 0; d && i < mb[q].nrows; i++)
			dense_add(d, mb[q].ids + mb[q].off[i], mb[q].off[i + 1] - mb[q].off[i]);
		td[q] = bench_ms() - t0;
		free(mb[q].ids);
		free(mb[q].off);
	}
	f->trial_ms = bench_median(tt, NMEASURE);
	f->rollback_ms = bench_median(tr, NMEASURE);
	f->dense_ms = d ? bench_median(td, NMEASURE) : -1;
	f->rows_per_query = (double) rows / NMEASURE;
}

static void
print_figures(const char *name, uint32_t n, size_t logged, const figures_t *f)
{
	printf("%-24s n=%-6u logged=%-4zu rank=%-4u atoms=%-6u rows/q=%6.1f "
		   "trial=%8.3f ms rollback=%6.3f ms max=%8.3f ms mem=%5.1f MB det=%zu",
		   name, n, logged, f->rank, f->natoms, f->rows_per_query,
		   f->trial_ms, f->rollback_ms, f->max_ms, f->memory / 1048576.0,
		   f->determined);
	printf(" new/q=%.1f indep/q=%.1f blocksearch/q=%.1f", f->newly_per_query,
		   f->indep_per_query, f->block_per_query);
	if (f->dense_ms >= 0)
		printf(" | dense=%8.3f ms ratio=%.1fx det %s", f->dense_ms,
			   f->dense_ms / f->trial_ms,
			   f->dense_determined == (long) f->determined ? "agree" : "MISMATCH");
	printf("\n");
	fflush(stdout);
}

/* one workload at n records, figures at 100 and 1000 logged rows */
static void
run(const char *name, uint32_t n, int benign, int c0, int c1, int c2,
	int with_dense, int ntargets, uint64_t prime)
{
	static const size_t targets[2] = {100, 1000};
	workload_t	w;
	batch_t		b;
	dense_t		d;
	tapas_rng_t rng;
	tapas_rowspace_t *rs;
	size_t		logged = 0;
	int			t;

	workload_init(&w, n, benign > 0, c0, c1, c2, 20261130);
	if (benign < 0)
	{
		w.differences = 1;
		w.last = malloc(n * sizeof(uint32_t));
	}
	b.ids = malloc(((size_t) n + 1) * sizeof(uint32_t));
	b.off = malloc(((size_t) n + 2) * sizeof(size_t));
	tapas_rng_seed(&rng, 42);
	rs = tapas_rowspace_create(n, prime, 4096, &rng, NULL);
	if (with_dense)
		dense_init(&d, n, targets[ntargets - 1] + 1024, prime);
	for (t = 0; t < ntargets; t++)
	{
		figures_t	f;

		measure(rs, with_dense ? &d : NULL, &w, &b, &logged, targets[t], &f);
		print_figures(name, n, targets[t], &f);
	}
	tapas_rowspace_free(rs);
	if (with_dense)
		dense_free(&d);
	free(b.ids);
	free(b.off);
	for (t = 0; t < 3; t++)
		free(w.qi[t]);
	free(w.last);
}

int
main(void)
{
	tapas_rng_t rng;
	uint64_t	prime;
	double		t0 = bench_ms();

	tapas_rng_seed(&rng, 7);
	prime = tapas_rowspace_prime_draw(&rng);
	gb_count = malloc(65536 * sizeof(uint32_t));
	gb_cursor = malloc(65536 * sizeof(uint32_t));
	printf("# rowspace: per-query medians of %d queries after the ledger holds the given rows; k=%d\n",
		   NMEASURE, K_THRESHOLD);
	printf("# (a) benign GROUP BY over (age band, sex, region Zipf); (b) Bernoulli(1/2) rows;\n");
	printf("# (b + difference) the measured query is the last Bernoulli row plus one record (determines it)\n");
	run("a benign (10,2,20)", 100000, 1, 10, 2, 20, 0, 2, prime);
	run("a benign (90,2,50)", 100000, 1, 90, 2, 50, 0, 2, prime);
	run("b bernoulli", 100000, 0, 0, 0, 0, 0, 2, prime);
	run("b bernoulli + difference", 100000, -1, 0, 0, 0, 0, 2, prime);
	printf("# baseline: dense incremental RREF mod p on the same rows in this process\n");
	run("a benign (90,2,50)", 4096, 1, 90, 2, 50, 1, 2, prime);
	run("b bernoulli", 4096, 0, 0, 0, 0, 1, 2, prime);
	run("b bernoulli", 100000, 0, 0, 0, 0, 1, 1, prime);
	printf("# total %.1f s\n", (bench_ms() - t0) / 1e3);
	free(gb_count);
	free(gb_cursor);
	return 0;
}
