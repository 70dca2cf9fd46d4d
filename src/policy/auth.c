/*-------------------------------------------------------------------------
 *
 * auth.c
 *	  Who is audited, and who may administer tapas.
 *
 * A session is audited unless its session user is a superuser or a member
 * of tapas.admin_role (default tapas_admin).  The session user, not the
 * current user, decides: SET ROLE and SECURITY DEFINER functions change the
 * current user but not who is at the keyboard, so neither escapes the audit.
 * SET SESSION AUTHORIZATION needs superuser, which is exempt anyway.
 *
 * IDENTIFICATION
 *	  src/policy/auth.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/guc.h"

#include "policy/policy.h"

int			tapas_internal_read = 0;
char	   *tapas_admin_role = NULL;
bool		tapas_loaded_at_startup = false;

void
tapas_policy_define_gucs(void)
{
	DefineCustomStringVariable("tapas.admin_role",
							   "Role whose members are exempt from auditing and may read the ledger.",
							   "Superusers are always exempt.",
							   &tapas_admin_role,
							   "tapas_admin",
							   PGC_POSTMASTER,
							   0,
							   NULL, NULL, NULL);
	tapas_guard_define_gucs();
}

/* true when roleid is a superuser or has the privileges of the admin role */
static bool
role_is_admin(Oid roleid)
{
	Oid			admin;

	if (superuser_arg(roleid))
		return true;
	admin = get_role_oid(tapas_admin_role, true);
	return OidIsValid(admin) && has_privs_of_role(roleid, admin);
}

bool
tapas_session_is_audited(void)
{
	if (tapas_internal_read > 0)
		return false;
	return !role_is_admin(GetSessionUserId());
}

/*
 * Raises insufficient_privilege unless the session user administers tapas.
 * "what" names the action for the message, e.g. "read the tapas ledger".
 */
void
tapas_require_admin(const char *what)
{
	if (!role_is_admin(GetSessionUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to %s", what),
				 errhint("Only superusers and members of role \"%s\" may do this.",
						 tapas_admin_role)));
}

void
tapas_require_preloaded(void)
{
	if (!tapas_loaded_at_startup)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("tapas must be loaded via shared_preload_libraries")));
}
