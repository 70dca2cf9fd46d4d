/*-------------------------------------------------------------------------
 *
 * attacks_params.c
 *	  The params jsonb of the attack functions: key checks and getters.
 *
 * params is always a JSON object.  Each SQL function (and each attack)
 * declares its valid keys; an unknown key is an error naming the valid
 * ones, because a misspelt parameter silently falling back to its default
 * would give a misleading privacy assessment.  JSON null means "absent".
 * The "distance" parameter, shared by the score attacks and the shadow
 * modelling evaluation, is parsed here too so both read it alike.
 *
 * IDENTIFICATION
 *	  src/api/attacks_params.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "nodes/pg_list.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "api/attacks_pg.h"

/* comma-separated list of the valid keys, for hints */
static char *
valid_list(const char *const *valid)
{
	StringInfoData buf;
	int			i;

	initStringInfo(&buf);
	for (i = 0; valid[i] != NULL; i++)
		appendStringInfo(&buf, "%s%s", i ? ", " : "", valid[i]);
	return buf.data;
}

Jsonb *
tapas_attack_params_arg(FunctionCallInfo fcinfo, int argno, const char *what)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"params\" of %s must not be NULL", what),
				 errhint("Pass '{}' for the default parameters.")));
	return PG_GETARG_JSONB_P(argno);
}

void
tapas_attack_params_check(Jsonb *params, const char *const *valid,
						  const char *what)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken r;

	if (params == NULL)
		return;
	if (!JB_ROOT_IS_OBJECT(params))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("params of %s must be a JSON object", what),
				 errhint("Pass parameters as '{\"name\": value, ...}'.")));
	it = JsonbIteratorInit(&params->root);
	while ((r = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		char	   *key;
		int			i;
		bool		ok = false;

		if (r != WJB_KEY)
			continue;
		key = pnstrdup(v.val.string.val, v.val.string.len);
		for (i = 0; valid[i] != NULL && !ok; i++)
			ok = strcmp(valid[i], key) == 0;
		if (!ok)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unrecognized parameter \"%s\" for %s", key, what),
					 errhint("Valid parameters are: %s.", valid_list(valid))));
	}
}

bool
tapas_attack_param_find(JsonbContainer *obj, const char *key, JsonbValue *out)
{
	if (obj == NULL || !JsonContainerIsObject(obj))
		return false;
	if (getKeyJsonValueFromContainer(obj, key, strlen(key), out) == NULL)
		return false;
	return out->type != jbvNull;
}

char *
tapas_attack_jsonb_scalar_text(JsonbValue *v, const char *what)
{
	if (v->type == jbvString)
		return pnstrdup(v->val.string.val, v->val.string.len);
	if (v->type == jbvNumeric)
		return DatumGetCString(DirectFunctionCall1(numeric_out,
												   NumericGetDatum(v->val.numeric)));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s must be a string or a number", what)));
	return NULL;				/* keep compiler quiet */
}

double
tapas_attack_param_float(Jsonb *params, const char *key, double dflt)
{
	JsonbValue	v;

	if (params == NULL || !tapas_attack_param_find(&params->root, key, &v))
		return dflt;
	if (v.type != jbvNumeric)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"%s\" must be a number", key)));
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8,
											  NumericGetDatum(v.val.numeric)));
}

char *
tapas_attack_param_text(Jsonb *params, const char *key, const char *dflt)
{
	JsonbValue	v;
	char	   *what;

	if (params == NULL || !tapas_attack_param_find(&params->root, key, &v))
		return dflt ? pstrdup(dflt) : NULL;
	what = psprintf("parameter \"%s\"", key);
	return tapas_attack_jsonb_scalar_text(&v, what);
}

List *
tapas_attack_param_name_list(Jsonb *params, const char *key)
{
	JsonbValue	v;
	List	   *names = NIL;
	JsonbIterator *it;
	JsonbIteratorToken r;
	JsonbValue	e;

	if (params == NULL || !tapas_attack_param_find(&params->root, key, &v))
		return NIL;
	if (v.type != jbvBinary || !JsonContainerIsArray(v.val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"%s\" must be an array of column names", key)));
	it = JsonbIteratorInit(v.val.binary.data);
	while ((r = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		if (r != WJB_ELEM)
			continue;
		if (e.type != jbvString)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("parameter \"%s\" must be an array of column names", key)));
		names = lappend(names, pnstrdup(e.val.string.val, e.val.string.len));
	}
	return names;
}

/* ----------------------------------------------------------------
 *		The "distance" parameter
 * ----------------------------------------------------------------
 */

static const char *const distance_object_keys[] = {"type", "p", "columns", "weights", "scale", NULL};

/* sets kind and p from a distance name; false if the name is unrecognized */
static bool
distance_by_name(tapas_distance_t *d, const char *name)
{
	d->p = 2;
	if (strcmp(name, "hamming") == 0)
		d->kind = TAPAS_DISTANCE_HAMMING;
	else if (strcmp(name, "l1") == 0)
	{
		d->kind = TAPAS_DISTANCE_LP;
		d->p = 1;
	}
	else if (strcmp(name, "l2") == 0 || strcmp(name, "lp") == 0)
		d->kind = TAPAS_DISTANCE_LP;
	else
		return false;
	return true;
}

/*
 * One distance from a name or an object v into d (no subset, no weights
 * yet); returns NULL or the unrecognized name.
 */
static const char *
parse_one(JsonbValue *v, tapas_distance_t *d, List **columns, bool *has_columns)
{
	JsonbValue	f;
	Jsonb	   *obj;
	char	   *name;

	memset(d, 0, sizeof(*d));
	d->kind = TAPAS_DISTANCE_HAMMING;
	d->p = 2;
	*columns = NIL;
	*has_columns = false;
	if (v->type == jbvString)
	{
		name = pnstrdup(v->val.string.val, v->val.string.len);
		return distance_by_name(d, name) ? NULL : name;
	}
	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"distance\" must be a name, an object or an array of them")));
	obj = JsonbValueToJsonb(v);
	tapas_attack_params_check(obj, distance_object_keys, "distance");
	name = tapas_attack_param_text(obj, "type", "hamming");
	if (!distance_by_name(d, name))
		return name;
	d->p = tapas_attack_param_float(obj, "p", d->p);
	if (!(d->p > 0) || !isfinite(d->p))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("distance exponent p must be positive and finite")));
	d->scale = tapas_attack_param_float(obj, "scale", 1.0);
	if (!(d->scale > 0) || !isfinite(d->scale))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("distance scale must be positive and finite")));
	*has_columns = tapas_attack_param_find(&obj->root, "columns", &f);
	*columns = tapas_attack_param_name_list(obj, "columns");
	return NULL;
}

/* the elements of the "distance" array (NIL when it is not an array) */
static List *
distance_elements(Jsonb *params)
{
	JsonbValue	v,
				e;
	JsonbIterator *it;
	JsonbIteratorToken r;
	List	   *out = NIL;

	if (params == NULL || !tapas_attack_param_find(&params->root, "distance", &v) ||
		v.type != jbvBinary || !JsonContainerIsArray(v.val.binary.data))
		return NIL;
	it = JsonbIteratorInit(v.val.binary.data);
	while ((r = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
		if (r == WJB_ELEM)
		{
			JsonbValue *copy = palloc(sizeof(JsonbValue));

			*copy = e;
			out = lappend(out, copy);
		}
	return out;
}

const char *
tapas_attack_param_distance(Jsonb *params, tapas_distance_t *d,
							List **columns, bool *has_columns)
{
	JsonbValue	v;
	List	   *elems;
	ListCell   *lc;
	tapas_distance_t *terms;
	int			k = 0;

	memset(d, 0, sizeof(*d));
	d->kind = TAPAS_DISTANCE_HAMMING;
	d->p = 2;
	*columns = NIL;
	*has_columns = false;
	if (params == NULL || !tapas_attack_param_find(&params->root, "distance", &v))
		return NULL;
	elems = distance_elements(params);
	if (elems == NIL)
	{
		if (v.type == jbvBinary && JsonContainerIsArray(v.val.binary.data))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a sum of distances needs at least one term")));
		return parse_one(&v, d, columns, has_columns);
	}
	/* an array: the sum of its terms (the reference's d1 + d2) */
	if (list_length(elems) > TAPAS_DISTANCE_MAX_TERMS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a sum of distances has at most %d terms", TAPAS_DISTANCE_MAX_TERMS)));
	terms = palloc0(sizeof(tapas_distance_t) * list_length(elems));
	foreach(lc, elems)
	{
		JsonbValue *e = lfirst(lc);
		List	   *names;
		bool		has;
		const char *bad;

		if (e->type == jbvBinary && JsonContainerIsArray(e->val.binary.data))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a term of a sum of distances must be a name or an object"),
					 errhint("Sums do not nest: list every term in one array.")));
		bad = parse_one(e, &terms[k++], &names, &has);
		if (bad != NULL)
			return bad;
	}
	d->kind = TAPAS_DISTANCE_SUM;
	d->terms = terms;
	d->n_terms = (size_t) k;
	return NULL;
}

/* d->weights from the "weights" member of the distance object obj */
static void
weights_from(TapasAttackSchema *schema, JsonbContainer *obj, tapas_distance_t *d)
{
	JsonbValue	v,
				w;
	JsonbIterator *it;
	JsonbIteratorToken r;
	double	   *weights;
	int			j;

	if (!tapas_attack_param_find(obj, "weights", &w))
		return;
	if (w.type != jbvBinary || !JsonContainerIsObject(w.val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("distance weights must be an object mapping column names to numbers")));
	weights = palloc(sizeof(double) * (schema->ncols + 1));
	for (j = 0; j < schema->ncols; j++)
		weights[j] = 1.0;
	it = JsonbIteratorInit(w.val.binary.data);
	while ((r = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		char	   *name;
		double		x;

		if (r != WJB_KEY)
			continue;
		name = pnstrdup(v.val.string.val, v.val.string.len);
		j = tapas_attack_schema_column(schema, name);
		if (j < 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("distance weight column \"%s\" is not a dataset column", name)));
		r = JsonbIteratorNext(&it, &v, true);
		if (v.type != jbvNumeric)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("distance weight of column \"%s\" must be a number", name)));
		x = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
											   NumericGetDatum(v.val.numeric)));
		if (!(x >= 0) || !isfinite(x))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("distance weight of column \"%s\" must be non-negative and finite", name)));
		weights[j] = x;
	}
	d->weights = weights;
}

void
tapas_attack_distance_weights(TapasAttackSchema *schema, Jsonb *params,
							  tapas_distance_t *d)
{
	JsonbValue	v;

	if (params == NULL || !tapas_attack_param_find(&params->root, "distance", &v) ||
		v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
		return;
	weights_from(schema, v.val.binary.data, d);
}

void
tapas_attack_distance_resolve_terms(TapasAttackSchema *schema, Jsonb *params,
									tapas_distance_t *d)
{
	List	   *elems;
	ListCell   *lc;
	size_t		k = 0;

	if (d->kind != TAPAS_DISTANCE_SUM)
		return;
	elems = distance_elements(params);
	foreach(lc, elems)
	{
		JsonbValue *e = lfirst(lc);
		tapas_distance_t *t = (tapas_distance_t *) &d->terms[k++];
		Jsonb	   *obj;
		JsonbValue	f;

		if (e->type != jbvBinary)
			continue;
		obj = JsonbValueToJsonb(e);
		if (tapas_attack_param_find(&obj->root, "columns", &f))
			tapas_attack_distance_columns(schema,
										  tapas_attack_param_name_list(obj, "columns"), t);
		weights_from(schema, &obj->root, t);
	}
}

void
tapas_attack_distance_columns(TapasAttackSchema *schema, List *names,
							  tapas_distance_t *d)
{
	size_t	   *cols = palloc(sizeof(size_t) * (list_length(names) + 1));
	ListCell   *lc;

	d->ncolumns = 0;
	foreach(lc, names)
	{
		int			j = tapas_attack_schema_column(schema, lfirst(lc));

		if (j < 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("distance column \"%s\" is not a dataset column",
							(char *) lfirst(lc))));
		cols[d->ncolumns++] = (size_t) j;
	}
	d->columns = cols;
}
