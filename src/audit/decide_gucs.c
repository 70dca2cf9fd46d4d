/*-------------------------------------------------------------------------
 *
 * decide_gucs.c
 *	  The auditor's settings: tapas.mode, tapas.audit_scope,
 *	  tapas.audit_budget_ms and the other tapas.audit_* and
 *	  tapas.min_candidates.
 *
 * All are PGC_SUSET: an analyst cannot loosen the audit of the answers
 * released to them.  The settings of the audit's memory and of the
 * alerts are defined by their own files (tapas_audit_define_memory_guc,
 * tapas_alerts_define_gucs), called from tapas_audit_define_gucs.
 *
 * IDENTIFICATION
 *	  src/audit/decide_gucs.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/guc.h"

#include "audit/decide_int.h"
#include "recon/linrel.h"

int			tapas_audit_budget_ms = 300;
int			tapas_audit_scope = TAPAS_SCOPE_ALL;
int			tapas_min_candidates = 10;
bool		tapas_audit_combined_rows = true;
int			tapas_audit_joint_max_unknowns = TAPAS_JOINT_MAX_UNKNOWNS;

int			tapas_mode = TAPAS_MODE_DENY;

static const struct config_enum_entry scope_options[] = {
	{"all", TAPAS_SCOPE_ALL, false},
	{"role", TAPAS_SCOPE_ROLE, false},
	{NULL, 0, false}
};

static const struct config_enum_entry mode_options[] = {
	{"off", TAPAS_MODE_OFF, false},
	{"log", TAPAS_MODE_LOG, false},
	{"warn", TAPAS_MODE_WARN, false},
	{"deny", TAPAS_MODE_DENY, false},
	{NULL, 0, false}
};

void
tapas_audit_define_gucs(void)
{
	DefineCustomEnumVariable("tapas.mode",
							 "What tapas does when an answer isolates a record.",
							 "off: no isolation audit; log: record an alert; "
							 "warn: also warn the analyst; deny: refuse the query.",
							 &tapas_mode,
							 TAPAS_MODE_DENY,
							 mode_options,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomEnumVariable("tapas.audit_scope",
							 "Whose answers tapas combines when it audits a query.",
							 "all: the answers released to every audited role, assumed shared; "
							 "role: the answers released to the session user only.",
							 &tapas_audit_scope,
							 TAPAS_SCOPE_ALL,
							 scope_options,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("tapas.min_candidates",
							"Fewest records the attacker's candidate set for a record may have.",
							"A record whose candidate set (records positive in some solution consistent with the answers) is smaller is isolated.",
							&tapas_min_candidates,
							10, 2, 1000000,
							PGC_SUSET, 0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("tapas.audit_classes_per_role",
							"Most classes of statistics one session user may add to a protected table's joint audit.",
							"-1: a quarter of the 256 a table holds; 0: no quota.  A statement past it is refused (TP003) for that role only.",
							&tapas_audit_classes_per_role,
							-1, -1, TAPAS_LINREL_MAX_CLASSES,
							PGC_SUSET, 0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("tapas.audit_budget_ms",
							"Time per statement for the audit checks.",
							"A check that cannot complete within its share fails closed: TP004 in deny mode, an 'incomplete' alert otherwise.",
							&tapas_audit_budget_ms,
							300, 0, 600000,
							PGC_SUSET, GUC_UNIT_MS,
							NULL, NULL, NULL);
	tapas_audit_define_memory_guc();
	DefineCustomBoolVariable("tapas.audit_combined_rows",
							 "Runs the candidates test and the decoders on the rows that related classes give together.",
							 "off: each class's own rows only, as in 0.3 before issue 11's combined rows; the baseline of test/bench/audit-related.sh.",
							 &tapas_audit_combined_rows,
							 true,
							 PGC_SUSET, GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("tapas.audit_fast_decoders",
							 "Keeps the decoders' column patterns and hashes from one statement to the next, and runs short simulated trials.",
							 "off: patterns and hashes rebuilt by every statement, three full pursuit runs per simulated decision, as before; the baseline of test/bench/audit-joint.sh.",
							 &tapas_audit_fast_decoders,
							 true,
							 PGC_SUSET, GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("tapas.audit_max_positives",
							"Most positives the reconstruction decoders are run for.",
							"Above, the check fails closed (TP004 in deny mode). 256: the cap of 0.3 before issue 11 item 6, the baseline of test/bench/benign-workload.sh --cross.",
							&tapas_audit_max_positives,
							TAPAS_AUDIT_MAX_POSITIVES, 0, 100000000,
							PGC_SUSET, GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);
	DefineCustomIntVariable("tapas.audit_joint_max_unknowns",
							"Most unknowns (regions times records) of the joint system of a group of related classes.",
							"Above, the group's statements fail closed (TP004 in deny mode); a larger bound audits "
							"the group at its next statement, within tapas.audit_memory and the time budget "
							"(test/bench/joint-unknowns.sh measures the cost).",
							&tapas_audit_joint_max_unknowns,
							TAPAS_JOINT_MAX_UNKNOWNS, 1024, 1 << 28,
							PGC_SUSET, GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);
	DefineCustomBoolVariable("tapas.audit_row_families",
							 "Runs the simulated greedy decoder's products from the runs of disjoint rows (GROUP BY groups) when they pay.",
							 "off: from the column patterns whatever the rows, as before issue 11 item 6; the same decisions, the baseline of test/bench/cross-positives.sh.",
							 &tapas_audit_row_families,
							 true,
							 PGC_SUSET, GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);
	tapas_alerts_define_gucs();
}
