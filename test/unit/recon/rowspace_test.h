/*
 * rowspace_test.h
 *	  Helpers shared by the row-space unit tests (t-rowspace_*.c).
 */
#ifndef TAPAS_ROWSPACE_TEST_H
#define TAPAS_ROWSPACE_TEST_H

#include "recon/rowspace.h"

/* adds one row ids[0..len) to rs, outside a trial */
static inline tapas_status
rowspace_test_add_row(tapas_rowspace_t *rs, const uint32_t *ids, size_t len)
{
	size_t		off[2] = {0, len},
				count;
	const uint32_t *newly;

	return tapas_rowspace_add(rs, ids, off, 1, NULL, &newly, &count);
}

/* a progress callback's state that cancels at poll number at (1-based) */
typedef struct rowspace_test_canceller
{
	int			polls;
	int			at;
} rowspace_test_canceller;

static inline int
rowspace_test_cancel_at(void *arg, double fraction)
{
	rowspace_test_canceller *c = arg;

	(void) fraction;
	return ++c->polls >= c->at;
}

#endif							/* TAPAS_ROWSPACE_TEST_H */
