/*-------------------------------------------------------------------------
 *
 * attacks_params.c
 *	  The params jsonb of the attack functions: key checks and getters.
 *
 * params is always a JSON object.  Each SQL function (and each attack)
 * declares its valid keys; an unknown key is an error naming the valid
 * ones, because a misspelt parameter silently falling back to its default
 * would give a misleading privacy assessment.  JSON null means "absent".
 *
 * IDENTIFICATION
 *	  src/pg/attacks_params.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "nodes/pg_list.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "pg/attacks_pg.h"

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
