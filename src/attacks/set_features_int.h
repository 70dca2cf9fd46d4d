/*-------------------------------------------------------------------------
 *
 * set_features_int.h
 *	  Internal interface between the set-feature files.
 *
 * set_features.c drives extraction; targeted_queries.c draws query subsets
 * and counts matches; set_features_cocount.c counts the categorical
 * co-moments.  Not for use outside src/attacks/set_features*.
 *
 * IDENTIFICATION
 *	  src/attacks/set_features_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_SET_FEATURES_INT_H
#define TAPAS_SET_FEATURES_INT_H

#include "attacks/set_features.h"

/*
 * Draws it->dim (set here) query masks from it->seed.  TAPAS_EINVAL (masks
 * NULL) unless m <= 64, 1 <= order <= m and number >= 1; TAPAS_ENOMEM.
 */
extern tapas_status tapas_setfeat_draw_queries(tapas_setfeat_item_t *it, size_t m);

/*
 * Match masks of the n records against fs->target, sorted and compacted
 * into fs->maskbuf with their counts in fs->countbuf; returns the number
 * of distinct masks.
 */
extern size_t tapas_setfeat_match_masks(tapas_setfeat_t *fs, const double *x, size_t n);

/* out[q] = records whose mask contains query q of item it. */
extern void tapas_setfeat_count_queries(const tapas_setfeat_t *fs,
										const tapas_setfeat_item_t *it,
										size_t n_masks, double *out);

/*
 * sum[a] and the co-moments S[a][b] (a <= b) of the categorical columns'
 * encoded columns of the n records x, from row bitsets (fs->bits set:
 * some column is categorical and m <= 64).  Other entries are untouched.
 */
extern void tapas_setfeat_cocount(tapas_setfeat_t *fs, const double *x, size_t n);

#endif							/* TAPAS_SET_FEATURES_INT_H */
