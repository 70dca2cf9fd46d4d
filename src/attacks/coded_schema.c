/*-------------------------------------------------------------------------
 *
 * coded_schema.c
 *	  Layout of coded records for the set features (set_features.h).
 *
 * Offsets of the encoded blocks, and the dataset.h column specifications
 * mapped to the same encoding (ordinal: code / (card - 1); continuous:
 * (v - lower) / (upper - lower), 0 scale for a degenerate range).
 *
 * IDENTIFICATION
 *	  src/attacks/coded_schema.c
 *
 *-------------------------------------------------------------------------
 */
#include "attacks/dataset.h"
#include "attacks/set_features.h"
#include "util/memory.h"

tapas_coded_schema_t *
tapas_coded_schema_create(size_t m, const int *kind, const int *ncat)
{
	tapas_coded_schema_t *s;
	size_t		j;

	s = tapas_calloc(1, sizeof(*s));
	if (s == NULL || m == 0)
		goto fail;
	s->m = m;
	s->kind = tapas_malloc(m * sizeof(int));
	s->ncat = tapas_malloc(m * sizeof(int));
	s->offset = tapas_malloc(m * sizeof(size_t));
	s->shift = tapas_malloc(m * sizeof(double));
	s->scale = tapas_malloc(m * sizeof(double));
	if (!s->kind || !s->ncat || !s->offset || !s->shift || !s->scale)
		goto fail;
	for (j = 0; j < m; j++)
	{
		s->kind[j] = kind ? kind[j] : TAPAS_COL_NUMERIC;
		s->ncat[j] = 1;
		s->shift[j] = 0.0;
		s->scale[j] = 1.0;
		if (s->kind[j] == TAPAS_COL_CATEGORICAL)
		{
			if (ncat == NULL || ncat[j] < 1)
				goto fail;
			s->ncat[j] = ncat[j];
		}
		else if (s->kind[j] != TAPAS_COL_NUMERIC)
			goto fail;
		s->offset[j] = s->e;
		s->e += (size_t) s->ncat[j];
	}
	return s;
fail:
	tapas_coded_schema_free(s);
	return NULL;
}

void
tapas_coded_schema_free(tapas_coded_schema_t *s)
{
	if (s == NULL)
		return;
	tapas_free(s->kind);
	tapas_free(s->ncat);
	tapas_free(s->offset);
	tapas_free(s->shift);
	tapas_free(s->scale);
	tapas_free(s);
}

tapas_coded_schema_t *
tapas_coded_schema_from_specs(size_t c, const struct tapas_column_spec *cols)
{
	int		   *kind = tapas_malloc((c ? c : 1) * sizeof(int));
	int		   *ncat = tapas_malloc((c ? c : 1) * sizeof(int));
	tapas_coded_schema_t *s = NULL;
	size_t		j;

	if (kind == NULL || ncat == NULL)
		goto done;
	for (j = 0; j < c; j++)
	{
		kind[j] = cols[j].kind == TAPAS_COLUMN_CATEGORICAL ?
			TAPAS_COL_CATEGORICAL : TAPAS_COL_NUMERIC;
		ncat[j] = (int) cols[j].cardinality;
		if (cols[j].kind != TAPAS_COLUMN_CONTINUOUS && cols[j].cardinality < 1)
			goto done;
	}
	s = tapas_coded_schema_create(c, kind, ncat);
	if (s == NULL)
		goto done;
	for (j = 0; j < c; j++)
	{
		if (cols[j].kind == TAPAS_COLUMN_ORDINAL)
			s->scale[j] = cols[j].cardinality > 1 ?
				1.0 / (double) (cols[j].cardinality - 1) : 0.0;
		else if (cols[j].kind == TAPAS_COLUMN_CONTINUOUS)
		{
			s->shift[j] = cols[j].lower;
			s->scale[j] = cols[j].upper > cols[j].lower ?
				1.0 / (cols[j].upper - cols[j].lower) : 0.0;
		}
	}
done:
	tapas_free(kind);
	tapas_free(ncat);
	return s;
}

