/*-------------------------------------------------------------------------
 *
 * b-ledger.c
 *	  Ledger memory per logged cell and append latency, at n = 100,000.
 *
 * The dense index is first established by one full-table cell in key
 * order (as a first "SELECT count(*) FROM t" would), then three kinds of
 * cell are logged: a random half of the records (~50,000 keys), a random
 * 500 keys (a small GROUP BY cell), and a contiguous range of 25,000 keys
 * (a range predicate on the key order).  Memory per cell is what the store
 * really uses: the 80-byte cell header plus the arena bytes of its cover
 * (measured as the growth of arena_used).  Baselines, computed in the same
 * process: an uncompressed bitset over n records (n/8 bytes) and a plain
 * int64 key array (8 bytes per covered key).
 *
 * Latency: prepare + encode + apply per cell in memory, and the same plus
 * the durable write the server does (pwrite at the end of a file, then
 * fdatasync when tapas.ledger_sync is on) on a file in test/build/.
 *
 * IDENTIFICATION
 *	  test/bench/b-ledger.c
 *
 *-------------------------------------------------------------------------
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "lstore/ledger_file.h"
#include "lstore/ledger_store.h"
#include "util/memory.h"
#include "util/rng.h"

#define N			100000
#define RELID		16384

/* logs one cell; returns its bytes of store (header + arena growth) */
static double
log_cell(tapas_ledger_store_t *s, const int64_t *keys, uint64_t m, int fd, off_t *off, int sync)
{
	tapas_ledger_cell_in_t in = {RELID, "count(*)", (double) m, keys, m, NULL};
	tapas_ledger_batch_t *b;
	uint8_t    *frame;
	size_t		len;
	uint64_t	before = s->arena_used;

	if (tapas_ledger_store_prepare(s, &in, 1, NULL, &b) != TAPAS_OK)
		abort();
	b->first_log_id = s->next_log_id;
	if (tapas_ledger_file_encode_stmt(b, &frame, &len) != TAPAS_OK)
		abort();
	if (fd >= 0)
	{
		if (pwrite(fd, frame, len, *off) != (ssize_t) len)
			abort();
		*off += len;
		if (sync && fdatasync(fd) != 0)
			abort();
	}
	b->first_log_id = 0;
	if (tapas_ledger_store_apply(s, b, NULL) != TAPAS_OK)
		abort();
	tapas_free(frame);
	tapas_ledger_batch_free(b);
	return (double) sizeof(tapas_ledger_store_cell_t) + (double) (s->arena_used - before);
}

/* m distinct random keys of 1..N, shuffled */
static int64_t *
random_keys(tapas_rng_t *rng, uint64_t m)
{
	int64_t    *all = malloc(sizeof(int64_t) * N);
	uint64_t	i;

	for (i = 0; i < N; i++)
		all[i] = (int64_t) i + 1;
	tapas_rng_shuffle_i64(rng, all, N);
	(void) m;
	return all;					/* the first m are a random m-subset */
}

static tapas_ledger_store_t *
new_store(void)
{
	tapas_ledger_store_limits_t lim = {2 * N, 100000, UINT64_C(512) << 20, 4};
	size_t		size = tapas_ledger_store_size(&lim);
	void	   *region = NULL;
	tapas_ledger_store_t *s;
	int64_t    *keys = malloc(sizeof(int64_t) * N);
	int			i;

	if (posix_memalign(&region, 64, size) != 0)
		abort();
	s = tapas_ledger_store_init(region, size, &lim);
	for (i = 0; i < N; i++)
		keys[i] = i + 1;
	log_cell(s, keys, N, -1, NULL, 0);	/* index in key order */
	free(keys);
	return s;
}

static void
memory_row(const char *name, tapas_ledger_store_t *s, const int64_t *keys, uint64_t m)
{
	double		bytes = log_cell(s, keys, m, -1, NULL, 0);
	double		bitset = N / 8.0;
	double		array = 8.0 * m;

	printf("  %-22s %8llu %12.0f %14.4f %14.4f\n", name, (unsigned long long) m,
		   bytes, bytes / bitset, bytes / array);
}

/* mean microseconds per logged cell of m keys, over reps cells */
static double
latency_once(tapas_rng_t *rng, uint64_t m, int reps, int fd, int sync)
{
	tapas_ledger_store_t *s = new_store();
	int64_t    *keys = random_keys(rng, m);
	off_t		off = 0;
	double		t0;
	int			r;

	t0 = bench_us();
	for (r = 0; r < reps; r++)
		log_cell(s, keys + (r * 7919) % (N - m + 1), m, fd, &off, sync);
	t0 = (bench_us() - t0) / reps;
	free(keys);
	free(s);
	return t0;
}

/* the best of three runs: the machine is shared, noise only adds time */
static double
latency(tapas_rng_t *rng, uint64_t m, int reps, int fd, int sync)
{
	double		best = 1e300;
	int			k;

	for (k = 0; k < 3; k++)
	{
		double		t = latency_once(rng, m, reps, fd, sync);

		if (t < best)
			best = t;
	}
	return best;
}

int
main(void)
{
	tapas_rng_t rng;
	tapas_ledger_store_t *s;
	int64_t    *keys;
	int64_t    *range = malloc(sizeof(int64_t) * 25000);
	const char *path = "test/build/b-ledger.tmp";
	int			fd,
				i;
	uint64_t	sizes[2] = {500, 50000};
	int			reps[2] = {200, 20};

	tapas_rng_seed(&rng, 20261130);
	s = new_store();
	printf("ledger memory per logged cell at n = %d (80-byte header + compressed cover)\n", N);
	printf("  %-22s %8s %12s %14s %14s\n", "cell", "covered", "bytes/cell",
		   "/ bitset n/8", "/ int64 keys");
	keys = random_keys(&rng, 50000);
	memory_row("random half", s, keys, 50000);
	free(keys);
	keys = random_keys(&rng, 500);
	memory_row("random 500", s, keys, 500);
	free(keys);
	for (i = 0; i < 25000; i++)
		range[i] = 30001 + i;
	memory_row("contiguous 25,000", s, range, 25000);
	memory_row("whole table", s, keys = random_keys(&rng, N), N);
	free(keys);
	free(range);
	printf("  record index: 24 bytes per record (key, slot, index + 2 hash slots)\n");
	free(s);

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
	{
		perror(path);
		return 1;
	}
	printf("append latency per cell (us, best of 3 runs): prepare + encode + apply, then + pwrite, + fdatasync\n");
	printf("  %-10s %12s %12s %12s %18s\n", "covered", "memory", "+ write", "+ fdatasync",
		   "sync / memory");
	latency(&rng, 500, 100, -1, 0);	/* warm up */
	for (i = 0; i < 2; i++)
	{
		double		mem = latency(&rng, sizes[i], reps[i], -1, 0);
		double		wr = latency(&rng, sizes[i], reps[i], fd, 0);
		double		sy = latency(&rng, sizes[i], reps[i] / 4, fd, 1);

		printf("  %-10llu %12.1f %12.1f %12.1f %17.1fx\n", (unsigned long long) sizes[i],
			   mem, wr, sy, sy / mem);
	}
	close(fd);
	unlink(path);
	return 0;
}
