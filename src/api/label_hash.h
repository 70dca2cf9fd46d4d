/*-------------------------------------------------------------------------
 *
 * label_hash.h
 *	  Inline hashing and comparison of short byte strings (text labels),
 *	  shared by the label scan (dataset_labels.c) and the label index
 *	  (dataset_label_index.c).
 *
 * Labels are short (census codes are 1 to 9 bytes), so an inline FNV-1a
 * and an inline byte loop beat the calls to hash_bytes and memcmp that
 * every one of a table's cells used to make.
 *
 * IDENTIFICATION
 *	  src/api/label_hash.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_LABEL_HASH_H
#define TAPAS_LABEL_HASH_H

#include "postgres.h"

/* FNV-1a over len bytes */
static inline uint32
tapas_label_hash(const char *s, int len)
{
	uint32		h = 2166136261u;
	int			i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char) s[i]) * 16777619u;
	return h;
}

/* the len bytes at a and b are equal */
static inline bool
tapas_label_eq(const char *a, const char *b, int len)
{
	int			i;

	for (i = 0; i < len; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

#endif							/* TAPAS_LABEL_HASH_H */
