/*-------------------------------------------------------------------------
 *
 * release_risk.c
 *	  The dataset-only release audit: singling out, linkability, attribute
 *	  inference, exact copies, DCR and NNDR of training rows against holdout
 *	  rows (the procedure and estimators are in release_risk.h and
 *	  release_stats.h).
 *
 * This file runs the audit: it checks the parameters, allocates
 * everything at once (audit_mem), samples the targets, and turns the scans
 * into per-target risks, baselines and summaries.  The concepts are in
 * their own files (release_risk_int.h lists them): distances and the scans
 * in release_scan.c, singling out, linkability and attribute inference in
 * release_singling_out.c, release_linkability.c and release_inference.c.
 *
 * IDENTIFICATION
 *	  src/attacks/release_risk.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attacks/release_risk.h"
#include "attacks/release_risk_int.h"
#include "util/memory.h"
#include "util/rng.h"

static const char *const risk_names[TAPAS_RISK_COUNT] = {
	"singling_out", "linkability", "attribute_inference", "exact_copy",
	"dcr", "nndr"
};

const char *
tapas_risk_kind_name(tapas_risk_kind kind)
{
	return (unsigned) kind < TAPAS_RISK_COUNT ? risk_names[kind] : "unknown";
}

/* ----------------------------------------------------------------
 *		The audit
 * ----------------------------------------------------------------
 */

/* m distinct rows of 0 .. n-1, uniformly at random (m <= n) */
static void
sample_rows(tapas_rng_t *rng, size_t n, size_t m, size_t *out, size_t *perm)
{
	size_t		i;

	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = 0; i < m; i++)
	{
		size_t		r = i + tapas_rng_below(rng, n - i),
					t = perm[i];

		perm[i] = perm[r];
		perm[r] = t;
		out[i] = perm[i];
	}
}

static tapas_status
check_params(const tapas_dataset_t *real, const tapas_dataset_t *syn,
			 const tapas_dataset_t *hold, const tapas_release_params_t *p)
{
	size_t		k;

	if (!tapas_dataset_same_schema(real, syn) ||
		!tapas_dataset_same_schema(hold, syn) ||
		real->n == 0 || syn->n == 0 || hold->n == 0 ||
		p->n_targets == 0 || p->n_predicates == 0 ||
		!(p->tolerance >= 0) || !(p->confidence > 0 && p->confidence < 1) ||
		p->distance.kind == TAPAS_DISTANCE_SUM ||
		p->distance.columns != NULL || p->distance.weights != NULL ||
		(p->distance.scale != 0 && p->distance.scale != 1) ||
		tapas_distance_check(&p->distance, syn) != TAPAS_OK)
		return TAPAS_EINVAL;
	if (p->distance.kind == TAPAS_DISTANCE_LP &&
		(real->encoded == NULL || hold->encoded == NULL))
		return TAPAS_EINVAL;
	if (p->sensitive >= 0 &&
		((size_t) p->sensitive >= syn->c ||
		 syn->cols[p->sensitive].kind == TAPAS_COLUMN_CONTINUOUS))
		return TAPAS_EINVAL;
	if (p->n_link_a >= syn->c && p->n_link_a > 0)
		return TAPAS_EINVAL;
	for (k = 0; k < p->n_link_a; k++)
		if (p->link_a[k] >= syn->c)
			return TAPAS_EINVAL;
	return TAPAS_OK;
}

static void
audit_mem_free(audit_mem *am)
{
	tapas_free(am->perm);
	tapas_free(am->colperm);
	tapas_free(am->rows_r);
	tapas_free(am->rows_h);
	tapas_free(am->so_r);
	tapas_free(am->so_h);
	tapas_free(am->iso_r);
	tapas_free(am->iso_h);
	tapas_free(am->scan_r);
	tapas_free(am->scan_h);
	tapas_free(am->stat);
	tapas_free(am->sorted);
	tapas_free(am->pred.cols);
	tapas_free(am->pred.value);
	tapas_free(am->cx.cat);
	tapas_free(am->cx.in_a);
	tapas_free(am->cx.votes);
	tapas_free(am->cx.codes);
	tapas_free(am->cx.acc);
	tapas_free(am->cx.colv);
	tapas_free(am->cx.dacc);
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

/* number of values equal to v in the sorted array s of length n */
size_t
tapas_rr_count_equal(const double *s, size_t n, double v)
{
	size_t		lo = 0,
				hi = n,
				first;

	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (s[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	hi = n;
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (s[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - first;
}

/*
 * P(a release of n rows drawn from the synthetic marginals holds x) =
 * 1 - (1 - prod_j f_j(x_j))^n.
 */
static double
marginal_copy_probability(const audit_mem *am, const tapas_dataset_t *syn,
						  const double *x)
{
	double		prod = 1;
	size_t		j;

	for (j = 0; j < syn->c && prod > 0; j++)
		prod *= (double) tapas_rr_count_equal(am->sorted + j * syn->n, syn->n, x[j]) /
			(double) syn->n;
	return prod >= 1 ? 1.0 : -expm1((double) syn->n * log1p(-prod));
}

static tapas_status
audit_mem_alloc(audit_mem *am, const tapas_dataset_t *real,
				const tapas_dataset_t *syn, const tapas_dataset_t *hold,
				size_t m, size_t nso, const tapas_release_params_t *p)
{
	size_t		c = syn->c,
				big = real->n > hold->n ? real->n : hold->n,
				i,
				j;
	int			all_cat;

	if (syn->n > big)
		big = syn->n;
	if (c > big)
		big = c;
	am->perm = tapas_malloc(sizeof(size_t) * big);
	am->colperm = tapas_malloc(sizeof(size_t) * c);
	am->rows_r = tapas_malloc(sizeof(size_t) * m);
	am->rows_h = tapas_malloc(sizeof(size_t) * m);
	am->so_r = tapas_malloc(sizeof(size_t) * nso);
	am->so_h = tapas_malloc(sizeof(size_t) * nso);
	am->iso_r = tapas_calloc(real->n, sizeof(double));
	am->iso_h = tapas_calloc(hold->n, sizeof(double));
	am->scan_r = tapas_malloc(sizeof(target_scan) * m);
	am->scan_h = tapas_malloc(sizeof(target_scan) * m);
	am->stat = tapas_malloc(sizeof(double) * 4 * m);
	am->sorted = tapas_malloc(sizeof(double) * c * syn->n);
	am->pred.cols = tapas_malloc(sizeof(size_t) * c);
	am->pred.value = tapas_malloc(sizeof(double) * c);
	am->cx.cat = tapas_malloc(c);
	am->cx.in_a = tapas_calloc(c, 1);
	am->cx.card = p->sensitive >= 0 ? syn->cols[p->sensitive].cardinality : 1;
	am->cx.votes = tapas_malloc(sizeof(size_t) * am->cx.card);
	if (!am->perm || !am->colperm || !am->rows_r || !am->rows_h || !am->so_r || !am->so_h ||
		!am->iso_r || !am->iso_h || !am->scan_r || !am->scan_h || !am->stat ||
		!am->sorted || !am->pred.cols || !am->pred.value || !am->cx.cat ||
		!am->cx.in_a || !am->cx.votes)
		return TAPAS_ENOMEM;
	am->cx.syn = syn;
	am->cx.lp = p->distance.kind == TAPAS_DISTANCE_LP;
	am->cx.p = p->distance.p;
	am->cx.sens = p->sensitive;
	for (j = 0; j < c; j++)
		am->cx.cat[j] = syn->cols[j].kind == TAPAS_COLUMN_CATEGORICAL;
	for (j = 0; j < p->n_link_a; j++)
		am->cx.in_a[p->link_a[j]] = 1;
	for (j = 0; j < c; j++)
	{
		for (i = 0; i < syn->n; i++)
			am->sorted[j * syn->n + i] = syn->values[i * c + j];
		qsort(am->sorted + j * syn->n, syn->n, sizeof(double), cmp_double);
	}
	am->cx.sorted = am->sorted;
	am->cx.unit = 1.0;
	for (j = 0, all_cat = 1; j < c; j++)
		all_cat &= am->cx.cat[j];
	if (!p->rowwise && syn->n < UINT32_MAX &&
		(p->distance.kind == TAPAS_DISTANCE_HAMMING || all_cat))
	{
		/*
		 * L_p over one-hot blocks only: each mismatch adds exactly 2 to the
		 * sum, so the code scan counts and track_rows doubles.
		 */
		if (p->distance.kind == TAPAS_DISTANCE_LP)
			am->cx.unit = 2.0;
		am->cx.codes = tapas_malloc(sizeof(uint32_t) * c * syn->n);
		am->cx.acc = tapas_malloc(sizeof(uint32_t) * 3 * syn->n);
		if (am->cx.codes == NULL || am->cx.acc == NULL)
			return TAPAS_ENOMEM;
		for (j = 0; j < c; j++)
			for (i = 0; i < syn->n; i++)
				am->cx.codes[j * syn->n + i] =
					tapas_rr_value_code(&am->cx, j, syn->values[i * c + j]);
	}
	else if (p->distance.kind == TAPAS_DISTANCE_LP && !p->rowwise)
	{
		am->cx.colv = tapas_malloc(sizeof(double) * c * syn->n);
		am->cx.dacc = tapas_malloc(sizeof(double) * 3 * syn->n);
		if (am->cx.colv == NULL || am->cx.dacc == NULL)
			return TAPAS_ENOMEM;
		for (j = 0; j < c; j++)
			for (i = 0; i < syn->n; i++)
				am->cx.colv[j * syn->n + i] = am->cx.cat[j] ?
					syn->values[i * c + j] :
					syn->encoded[i * syn->encoded_dim + syn->offset[j]];
	}
	return TAPAS_OK;
}

static void
set_rates(tapas_risk_summary_t *o, double kr, double kh, double kb, size_t n,
		  double confidence)
{
	o->computed = 1;
	o->n_real = o->n_holdout = n;
	o->real = tapas_wilson(kr, (double) n, confidence);
	o->holdout = tapas_wilson(kh, (double) n, confidence);
	o->baseline = tapas_wilson(kb, (double) n, confidence);
	o->residual = tapas_residual_risk(kr, (double) n, kh, (double) n, confidence);
}

static void
add_record(tapas_risk_record_t *rec, size_t *n, int holdout, size_t row,
		   tapas_risk_kind kind, double value)
{
	rec[*n].holdout = (unsigned char) holdout;
	rec[*n].row = row;
	rec[*n].kind = kind;
	rec[*n].value = value;
	(*n)++;
}

/*
 * The per-target risks of one side: linkability, attribute inference,
 * exact copies, and the dcr/nndr statistics into stat[0..m-1] and
 * stat[2m..3m-1] (offset by m for the holdout).  Adds the successes to k[].
 */
static void
score_side(audit_mem *am, const tapas_dataset_t *ds, const size_t *rows,
		   size_t m, const target_scan *sc, int holdout, int do_link,
		   tapas_rng_t *rng, double *k, tapas_risk_record_t *rec, size_t *nrec)
{
	size_t		t;

	for (t = 0; t < m; t++)
	{
		const double *x = ds->values + rows[t] * ds->c;
		double		dcr = root(&am->cx, sc[t].d1),
					nndr = sc[t].d1 == 0 ? 0.0 : dcr / root(&am->cx, sc[t].d2);

		if (do_link)
		{
			int			ok = tapas_rr_link_to(&am->cx, ds, rows, m, sc[t].link, rng) == t;

			k[TAPAS_RISK_LINKABILITY] += ok;
			add_record(rec, nrec, holdout, rows[t], TAPAS_RISK_LINKABILITY, ok);
		}
		if (am->cx.sens >= 0)
		{
			int			ok = sc[t].guess == x[am->cx.sens];

			k[TAPAS_RISK_ATTRIBUTE_INFERENCE] += ok;
			add_record(rec, nrec, holdout, rows[t], TAPAS_RISK_ATTRIBUTE_INFERENCE, ok);
		}
		k[TAPAS_RISK_EXACT_COPY] += sc[t].d1 == 0;
		add_record(rec, nrec, holdout, rows[t], TAPAS_RISK_EXACT_COPY, sc[t].d1 == 0);
		add_record(rec, nrec, holdout, rows[t], TAPAS_RISK_DCR, dcr);
		add_record(rec, nrec, holdout, rows[t], TAPAS_RISK_NNDR, nndr);
		am->stat[(holdout ? m : 0) + t] = dcr;
		am->stat[2 * m + (holdout ? m : 0) + t] = nndr;
	}
}

/* the baselines of linkability, attribute inference and exact copies */
static void
baselines(audit_mem *am, const tapas_dataset_t *real,
		  const tapas_dataset_t *syn, size_t m, int do_link,
		  tapas_rng_t *rng, double *kb)
{
	size_t		t,
				mode = am->cx.sens >= 0 ? tapas_rr_synthetic_mode(&am->cx) : 0;

	for (t = 0; t < m; t++)
	{
		const double *x = real->values + am->rows_r[t] * real->c;

		if (do_link)
			kb[TAPAS_RISK_LINKABILITY] +=
				tapas_rr_link_to(&am->cx, real, am->rows_r, m,
						tapas_rng_below(rng, syn->n), rng) == t;
		if (am->cx.sens >= 0)
			kb[TAPAS_RISK_ATTRIBUTE_INFERENCE] += x[am->cx.sens] == (double) mode;
		kb[TAPAS_RISK_EXACT_COPY] += marginal_copy_probability(am, syn, x);
	}
}

tapas_status
tapas_release_risk(const tapas_dataset_t *real, const tapas_dataset_t *syn,
				   const tapas_dataset_t *holdout,
				   const tapas_release_params_t *p,
				   tapas_risk_summary_t out[TAPAS_RISK_COUNT],
				   tapas_risk_record_t **records, size_t *nrecords,
				   const tapas_progress_t *progress)
{
	audit_mem	am;
	tapas_rng_t rng;
	tapas_risk_record_t *rec = NULL;
	size_t		m,
				nso,
				nrec = 0,
				i;
	double		kr[TAPAS_RISK_COUNT] = {0},
				kh[TAPAS_RISK_COUNT] = {0},
				kb[TAPAS_RISK_COUNT] = {0};
	int			do_link = p->n_link_a > 0;
	tapas_status st;

	*records = NULL;
	*nrecords = 0;
	memset(out, 0, sizeof(tapas_risk_summary_t) * TAPAS_RISK_COUNT);
	if ((st = check_params(real, syn, holdout, p)) != TAPAS_OK)
		return st;
	memset(&am, 0, sizeof(am));
	m = p->n_targets;
	if (m > real->n)
		m = real->n;
	if (m > holdout->n)
		m = holdout->n;
	nso = real->n < holdout->n ? real->n : holdout->n;
	if ((st = audit_mem_alloc(&am, real, syn, holdout, m, nso, p)) != TAPAS_OK)
		goto done;
	rec = tapas_malloc(sizeof(tapas_risk_record_t) *
					   (5 * 2 * m + real->n + holdout->n));
	if (rec == NULL)
	{
		st = TAPAS_ENOMEM;
		goto done;
	}
	tapas_rng_seed(&rng, p->seed);
	sample_rows(&rng, real->n, m, am.rows_r, am.perm);
	sample_rows(&rng, holdout->n, m, am.rows_h, am.perm);
	sample_rows(&rng, real->n, nso, am.so_r, am.perm);
	sample_rows(&rng, holdout->n, nso, am.so_h, am.perm);

	tapas_rr_singling_out(&am, real, syn, holdout, nso, p, &rng,
					 &kr[TAPAS_RISK_SINGLING_OUT], &kh[TAPAS_RISK_SINGLING_OUT],
					 &kb[TAPAS_RISK_SINGLING_OUT]);
	set_rates(&out[TAPAS_RISK_SINGLING_OUT], kr[TAPAS_RISK_SINGLING_OUT],
			  kh[TAPAS_RISK_SINGLING_OUT], kb[TAPAS_RISK_SINGLING_OUT],
			  p->n_predicates, p->confidence);

	if ((st = tapas_rr_scan_side(&am, real, am.rows_r, m, am.scan_r, &rng, 0.0,
						progress)) != TAPAS_OK ||
		(st = tapas_rr_scan_side(&am, holdout, am.rows_h, m, am.scan_h, &rng, 0.5,
						progress)) != TAPAS_OK)
		goto done;
	score_side(&am, real, am.rows_r, m, am.scan_r, 0, do_link, &rng, kr, rec, &nrec);
	score_side(&am, holdout, am.rows_h, m, am.scan_h, 1, do_link, &rng, kh, rec, &nrec);
	baselines(&am, real, syn, m, do_link, &rng, kb);
	if (do_link)
		set_rates(&out[TAPAS_RISK_LINKABILITY], kr[TAPAS_RISK_LINKABILITY],
				  kh[TAPAS_RISK_LINKABILITY], kb[TAPAS_RISK_LINKABILITY], m,
				  p->confidence);
	if (p->sensitive >= 0)
		set_rates(&out[TAPAS_RISK_ATTRIBUTE_INFERENCE],
				  kr[TAPAS_RISK_ATTRIBUTE_INFERENCE],
				  kh[TAPAS_RISK_ATTRIBUTE_INFERENCE],
				  kb[TAPAS_RISK_ATTRIBUTE_INFERENCE], m, p->confidence);
	set_rates(&out[TAPAS_RISK_EXACT_COPY], kr[TAPAS_RISK_EXACT_COPY],
			  kh[TAPAS_RISK_EXACT_COPY], kb[TAPAS_RISK_EXACT_COPY], m,
			  p->confidence);
	if ((st = tapas_rr_distance_rows(&am, m, p, &rng, out)) != TAPAS_OK)
		goto done;

	for (i = 0; i < real->n; i++)
		if (am.iso_r[i] > 0)
			add_record(rec, &nrec, 0, i, TAPAS_RISK_SINGLING_OUT, am.iso_r[i]);
	for (i = 0; i < holdout->n; i++)
		if (am.iso_h[i] > 0)
			add_record(rec, &nrec, 1, i, TAPAS_RISK_SINGLING_OUT, am.iso_h[i]);
	*records = rec;
	*nrecords = nrec;
	rec = NULL;
done:
	tapas_free(rec);
	audit_mem_free(&am);
	return st;
}
