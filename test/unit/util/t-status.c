/*
 * t-status.c
 *	  Unit tests for src/util/status.c, the one table of status codes.
 *
 * Oracle: the SQLSTATEs the README's "Errors" table promises, written out
 * here by hand, and the shape every entry must have (a valid five-character
 * SQLSTATE, a distinct non-empty message).
 */
#include <ctype.h>
#include <limits.h>
#include <string.h>

#include "util/status.h"
#include "tapas_test.h"

static const struct
{
	tapas_status status;
	const char *sqlstate;
}			expected[] = {
	{TAPAS_OK, "00000"},
	{TAPAS_EINVAL, "22023"},		/* invalid_parameter_value */
	{TAPAS_ENOMEM, "53200"},		/* out_of_memory */
	{TAPAS_ECANCELED, "57014"},		/* query_canceled */
	{TAPAS_EDECODE, "22000"},		/* data_exception */
	{TAPAS_EINCONSISTENT, "22000"},
	{TAPAS_ENUMERIC, "22000"},
	{TAPAS_ELIMIT, "54000"},		/* program_limit_exceeded */
};

#define NEXPECTED ((int) (sizeof(expected) / sizeof(expected[0])))

static int
valid_sqlstate(const char *s)
{
	if (s == NULL || strlen(s) != 5)
		return 0;
	for (int i = 0; i < 5; i++)
		if (!(isdigit((unsigned char) s[i]) || isupper((unsigned char) s[i])))
			return 0;
	return 1;
}

/* every code from TAPAS_OK down to TAPAS_STATUS_LAST has the promised SQLSTATE */
static void
test_status_every_code(void)
{
	TAPAS_CHECK(NEXPECTED == 1 - TAPAS_STATUS_LAST);
	for (int i = 0; i < NEXPECTED; i++)
	{
		const tapas_status_info_t *info = tapas_status_info(expected[i].status);

		TAPAS_CHECK_MSG(info != NULL && info->status == expected[i].status,
						"status %d has no entry of its own", expected[i].status);
		if (info == NULL)
			continue;
		TAPAS_CHECK_MSG(valid_sqlstate(info->sqlstate) &&
						strcmp(info->sqlstate, expected[i].sqlstate) == 0,
						"status %d: SQLSTATE %s, expected %s", expected[i].status,
						info->sqlstate ? info->sqlstate : "(null)", expected[i].sqlstate);
		TAPAS_CHECK(info->message != NULL && info->message[0] != '\0');
		TAPAS_CHECK(strcmp(info->message, "unrecognized status") != 0);
		TAPAS_CHECK(tapas_status_message(expected[i].status) == info->message);
		TAPAS_CHECK(info->hint == NULL || info->hint[0] != '\0');
	}
}

/* two codes never share a message: the message tells which failure it was */
static void
test_status_messages_distinct(void)
{
	for (tapas_status a = TAPAS_OK; a >= TAPAS_STATUS_LAST; a--)
		for (tapas_status b = a - 1; b >= TAPAS_STATUS_LAST; b--)
			TAPAS_CHECK_MSG(strcmp(tapas_status_message(a), tapas_status_message(b)) != 0,
							"statuses %d and %d share a message", a, b);
}

/* a code outside the table is an internal error, never another code's entry */
static void
test_status_unknown(void)
{
	const tapas_status unknown[] = {1, 7, TAPAS_STATUS_LAST - 1, -100, INT_MIN, INT_MAX};

	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
	{
		const tapas_status_info_t *info = tapas_status_info(unknown[i]);

		TAPAS_CHECK(info != NULL);
		TAPAS_CHECK(strcmp(info->sqlstate, "XX000") == 0);
		TAPAS_CHECK(strcmp(tapas_status_message(unknown[i]), "unrecognized status") == 0);
	}
}

int
main(void)
{
	TAPAS_TEST_RUN(test_status_every_code);
	TAPAS_TEST_RUN(test_status_messages_distinct);
	TAPAS_TEST_RUN(test_status_unknown);
	TAPAS_TEST_DONE();
}
