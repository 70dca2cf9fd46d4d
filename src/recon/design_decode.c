/*-------------------------------------------------------------------------
 *
 * design_decode.c
 *	  Decoding the answers of a design (design.h): input checks, undoing
 *	  the k complements, and the per-method decoders with their
 *	  consistency checks.
 *
 * Answers arrive as doubles (exact integers up to 2^53 when noise is 0).
 * The base answer of a complemented row is b_r = T - b'_r with T the
 * answer of the total query.  Then:
 *	hadamard	exact: int64 FWHT with the divisibility check
 *				(hadamard.c); noisy: the least-squares estimate.
 *	bch			exact counts only.  The total count, when asked, must be
 *				<= s; parities -> syndromes -> tapas_bch_decode; then
 *				the support must reproduce every integer answer.
 *	bernoulli	compressed sensing on the answered rows (cs.h): any number
 *				of answers, the recommended rows and those of the endless
 *				extension alike (design.h).
 *
 * IDENTIFICATION
 *	  src/recon/design_decode.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "util/memory.h"
#include "recon/cs.h"
#include "recon/design.h"

#define DESIGN_MAX_EXACT	9007199254740992.0	/* 2^53 */

/* checks the answers against what the method accepts */
static tapas_status
decode_check_answers(const tapas_design_t *d, const double *answers, int na,
					 double noise, const char **reason)
{
	int			i;

	if (!(noise >= 0) || !isfinite(noise))
	{
		*reason = "noise must be a finite number >= 0";
		return TAPAS_EINVAL;
	}
	if (d->method == TAPAS_DESIGN_BCH && noise > 0)
	{
		*reason = "bch decoding needs exact answers (noise 0)";
		return TAPAS_EINVAL;
	}
	for (i = 0; i < na; i++)
	{
		double		a = answers[i];

		if (!isfinite(a))
		{
			*reason = "answers must be finite numbers";
			return TAPAS_EINVAL;
		}
		if (noise == 0 && (fabs(a) > DESIGN_MAX_EXACT || a != floor(a)))
		{
			*reason = "answers must be integers below 2^53 in absolute value when noise is 0";
			return TAPAS_EINVAL;
		}
		if (noise == 0 && a < 0 && d->method != TAPAS_DESIGN_HADAMARD)
		{
			*reason = "counts cannot be negative";
			return TAPAS_EINVAL;
		}
	}
	return TAPAS_OK;
}

/* b[r] = answer of base row r, undoing complements */
static void
decode_base_answers(const tapas_design_t *d, const double *answers, double *b)
{
	double		T = d->total_query >= 0 ? answers[d->total_query] : 0;
	int			r;

	for (r = 0; r < d->base_rows; r++)
		b[r] = (d->complemented != NULL && d->complemented[r]) ?
			T - answers[r] : answers[r];
}

static tapas_status
decode_hadamard(tapas_design_t *d, const double *b, double noise,
				int64_t *records, double *values, int64_t *count,
				const tapas_progress_t *progress, const char **reason)
{
	int64_t		j,
				N = d->base_rows;
	tapas_status st;

	if (noise > 0)
		st = tapas_hadamard_decode_double(d->n, b, values, progress);
	else
	{
		/* int64 answers in, x into the records array, then to doubles */
		int64_t    *a = tapas_malloc(N * sizeof(int64_t));

		if (a == NULL)
			return TAPAS_ENOMEM;
		for (j = 0; j < N; j++)
			a[j] = (int64_t) b[j];
		st = tapas_hadamard_decode_int64(d->n, a, records, progress);
		for (j = 0; st == TAPAS_OK && j < d->n; j++)
			values[j] = (double) records[j];
		tapas_free(a);
		if (st == TAPAS_EINCONSISTENT)
			*reason = "no integer values of the n records give these answers";
		else if (st == TAPAS_ELIMIT)
			*reason = "answers are too large for exact 64-bit decoding";
	}
	if (st != TAPAS_OK)
		return st;
	for (j = 0; j < d->n; j++)
		records[j] = j + 1;
	*count = d->n;
	return TAPAS_OK;
}

/* every query's count of the support equals its answer? */
static int
decode_bch_recheck(const tapas_design_t *d, const double *answers,
				   const int64_t *support, int w)
{
	int			i,
				t;

	for (i = 0; i < d->m; i++)
	{
		int64_t		c = 0;

		for (t = 0; t < w; t++)
			c += tapas_design_member(d, i, support[t]);
		if ((double) c != answers[i])
			return 0;
	}
	return 1;
}

static tapas_status
decode_bch(tapas_design_t *d, const double *answers, const double *b,
		   int64_t *records, double *values, int64_t *count,
		   const char **reason)
{
	tapas_bch_t *bch = d->bch;
	uint8_t    *parity = tapas_malloc(bch->m);
	uint32_t   *syn = tapas_malloc(bch->s * sizeof(uint32_t));
	int			r,
				w = 0;
	tapas_status st = TAPAS_OK;

	if (parity == NULL || syn == NULL)
		st = TAPAS_ENOMEM;
	else if (d->total_query >= 0 && answers[d->total_query] > d->s)
	{
		*reason = "the total count is above s";
		st = TAPAS_EDECODE;
	}
	for (r = 0; st == TAPAS_OK && r < bch->m; r++)
	{
		if (b[r] < 0)
		{
			*reason = "a query counts more records than the total query";
			st = TAPAS_EINCONSISTENT;
		}
		parity[r] = (uint8_t) ((int64_t) b[r] & 1);
	}
	if (st == TAPAS_OK)
	{
		tapas_bch_pack_syndromes(bch, parity, syn);
		st = tapas_bch_decode(bch, syn, records, &w);
		if (st == TAPAS_EDECODE)
			*reason = "no set of at most s records has these parities: more than s records are positive";
	}
	if (st == TAPAS_OK && !decode_bch_recheck(d, answers, records, w))
	{
		*reason = "the decoded records do not reproduce the counts: more than s records are positive, or the values are not 0/1";
		st = TAPAS_EDECODE;
	}
	for (r = 0; st == TAPAS_OK && r < w; r++)
		values[r] = 1.0;
	*count = st == TAPAS_OK ? w : 0;
	tapas_free(parity);
	tapas_free(syn);
	return st;
}

/*
 * Compressed sensing on the base rows: the Bernoulli matrix is written out
 * as a packed binary matrix and x is recovered as a 0/1 vector of weight
 * about s (cs.h, AUTO: OMP, then LP when OMP's result is inconsistent).
 */
static tapas_status
decode_bernoulli(tapas_design_t *d, const double *answers, int na, double noise,
				 int64_t *records, double *values, int64_t *count,
				 const tapas_progress_t *progress, const char **reason)
{
	int			rows = na - (d->total_query >= 0 && d->total_query < na);
	tapas_binmat_t *A = tapas_binmat_create(rows, d->n);
	double	   *x = tapas_malloc(d->n * sizeof(double));
	double	   *b = tapas_malloc(rows * sizeof(double));
	double		T = d->total_query >= 0 && d->total_query < na ? answers[d->total_query] : 0;
	tapas_cs_report report;
	tapas_status st = TAPAS_ENOMEM;
	int64_t		j,
				c = 0;
	int			q,
				r = 0;

	if (A != NULL && x != NULL && b != NULL)
	{
		st = TAPAS_OK;
		/* the base rows answered, complements undone: b_r = T - b'_r */
		for (q = 0; q < na && st == TAPAS_OK; q++)
		{
			if (q == d->total_query)
				continue;
			if (tapas_design_query_complemented(d, q) &&
				(d->total_query < 0 || d->total_query >= na))
			{
				*reason = "a complemented query is answered without the total query";
				st = TAPAS_EINVAL;
				break;
			}
			if (tapas_progress_poll(progress, 0.5 * q / na))
				st = TAPAS_ECANCELED;
			b[r] = tapas_design_query_complemented(d, q) ? T - answers[q] : answers[q];
			for (j = 1; j <= d->n; j++)
				if (tapas_design_query_base_member(d, q, j))
					tapas_binmat_set(A, r, j - 1, 1);
			r++;
		}
		if (st == TAPAS_OK)
			st = tapas_cs_recover(A, b, d->s, noise, TAPAS_CS_AUTO, 1, x,
								  &report, progress);
	}
	if (st == TAPAS_OK && !report.consistent)
	{
		*reason = noise > 0 ?
			"no sparse 0/1 vector explains the answers within the noise" :
			"no sparse 0/1 vector reproduces the answers";
		st = TAPAS_EINCONSISTENT;
	}
	for (j = 0; st == TAPAS_OK && j < d->n; j++)
		if (x[j] != 0)
		{
			records[c] = j + 1;
			values[c++] = x[j];
		}
	*count = c;
	tapas_binmat_free(A);
	tapas_free(x);
	tapas_free(b);
	return st;
}

tapas_status
tapas_design_decode(tapas_design_t *d, const double *answers, double noise,
					int64_t *records, double *values, int64_t *count,
					const tapas_progress_t *progress, const char **reason)
{
	return tapas_design_decode_n(d, answers, d->m, noise, records, values,
								 count, progress, reason);
}

tapas_status
tapas_design_decode_n(tapas_design_t *d, const double *answers, int na,
					  double noise, int64_t *records, double *values,
					  int64_t *count, const tapas_progress_t *progress,
					  const char **reason)
{
	const char *dummy;
	double	   *b;
	tapas_status st;

	if (reason == NULL)
		reason = &dummy;
	*reason = NULL;
	*count = 0;
	if (d->method == TAPAS_DESIGN_BERNOULLI ? na < 1 || na > tapas_design_queries(d) : na != d->m)
	{
		*reason = d->method == TAPAS_DESIGN_BERNOULLI ?
			"answers must cover queries 1 to at most the extended design's size" :
			"this design needs one answer per query";
		return TAPAS_EINVAL;
	}
	st = decode_check_answers(d, answers, na, noise, reason);
	if (st != TAPAS_OK)
		return st;
	if (d->method == TAPAS_DESIGN_BERNOULLI)
		return decode_bernoulli(d, answers, na, noise, records, values, count,
								progress, reason);
	b = tapas_malloc(d->base_rows * sizeof(double));
	if (b == NULL)
		return TAPAS_ENOMEM;
	decode_base_answers(d, answers, b);
	switch (d->method)
	{
		case TAPAS_DESIGN_HADAMARD:
			st = decode_hadamard(d, b, noise, records, values, count,
								 progress, reason);
			break;
		case TAPAS_DESIGN_BCH:
			st = decode_bch(d, answers, b, records, values, count, reason);
			break;
		case TAPAS_DESIGN_BERNOULLI:
			break;				/* above */
	}
	tapas_free(b);
	return st;
}
