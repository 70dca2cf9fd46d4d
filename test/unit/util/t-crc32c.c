/*
 * t-crc32c.c
 *	  Unit tests for src/util/crc32c.c.
 *
 * Oracles: the published CRC-32C check value and iSCSI test vectors
 * (RFC 3720, appendix B.4), and a bit-at-a-time reference implementation
 * on random buffers and random split points.
 */
#include <string.h>

#include "util/crc32c.h"
#include "util/rng.h"
#include "tapas_test.h"

/* bitwise CRC-32C, straight from the definition */
static uint32_t
crc_reference(const uint8_t *p, size_t len)
{
	uint32_t	crc = 0xFFFFFFFF;
	size_t		i;
	int			k;

	for (i = 0; i < len; i++)
	{
		crc ^= p[i];
		for (k = 0; k < 8; k++)
			crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78 : crc >> 1;
	}
	return crc ^ 0xFFFFFFFF;
}

static void
test_crc32c_vectors(void)
{
	uint8_t		buf[32];
	int			i;

	TAPAS_CHECK(tapas_crc32c("123456789", 9) == 0xE3069283);
	TAPAS_CHECK(tapas_crc32c(NULL, 0) == 0);
	memset(buf, 0, 32);
	TAPAS_CHECK(tapas_crc32c(buf, 32) == 0x8A9136AA);
	memset(buf, 0xFF, 32);
	TAPAS_CHECK(tapas_crc32c(buf, 32) == 0x62A8AB43);
	for (i = 0; i < 32; i++)
		buf[i] = (uint8_t) i;
	TAPAS_CHECK(tapas_crc32c(buf, 32) == 0x46DD794E);
}

static void
test_crc32c_random_and_incremental(void)
{
	tapas_rng_t rng;
	uint8_t		buf[1000];
	long		it,
				iters = tapas_test_iters(200);

	tapas_rng_seed(&rng, tapas_test_seed());
	for (it = 0; it < iters; it++)
	{
		size_t		len = tapas_rng_below(&rng, sizeof(buf) + 1);
		size_t		cut = tapas_rng_below(&rng, len + 1);
		size_t		i;
		uint32_t	crc;

		for (i = 0; i < len; i++)
			buf[i] = (uint8_t) tapas_rng_u64(&rng);
		TAPAS_CHECK_MSG(tapas_crc32c(buf, len) == crc_reference(buf, len),
						"len %zu", len);
		crc = tapas_crc32c_update(tapas_crc32c_init(), buf, cut);
		crc = tapas_crc32c_update(crc, buf + cut, len - cut);
		TAPAS_CHECK_MSG(tapas_crc32c_final(crc) == crc_reference(buf, len),
						"len %zu cut %zu", len, cut);
	}
}

/* the dispatched update (SSE 4.2 here) and the table agree at every start
 * alignment and length, and with the bitwise reference */
static void
test_crc32c_hw_vs_table(void)
{
	tapas_rng_t rng;
	uint8_t		buf[600];
	size_t		off,
				len,
				i;

	tapas_rng_seed(&rng, tapas_test_seed() + 1);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t) tapas_rng_u64(&rng);
	for (off = 0; off < 16; off++)
		for (len = 0; len + off <= sizeof(buf); len += 1 + len / 8)
		{
			uint32_t	a = tapas_crc32c_update(tapas_crc32c_init(), buf + off, len);
			uint32_t	b = tapas_crc32c_update_sw(tapas_crc32c_init(), buf + off, len);

			TAPAS_CHECK_MSG(a == b && tapas_crc32c_final(a) == crc_reference(buf + off, len),
							"offset %zu len %zu", off, len);
		}
}

int
main(void)
{
	TAPAS_TEST_RUN(test_crc32c_vectors);
	TAPAS_TEST_RUN(test_crc32c_random_and_incremental);
	TAPAS_TEST_RUN(test_crc32c_hw_vs_table);
	TAPAS_TEST_DONE();
}
