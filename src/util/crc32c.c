/*-------------------------------------------------------------------------
 *
 * crc32c.c
 *	  Table-driven CRC-32C (Castagnoli), slicing by 4.
 *
 * The 4 x 256 table is built on first use (idempotent, so a race between
 * threads would only compute the same values twice; PostgreSQL backends
 * are single-threaded anyway).  Slicing by 4 consumes one 32-bit word per
 * step: crc' = T3[b0] ^ T2[b1] ^ T1[b2] ^ T0[b3] of (crc ^ word), the
 * standard identity for reflected CRCs (Kounavis and Berry, "A Systematic
 * Approach to Building High Performance Software-based CRC Generators",
 * ISCC 2005).
 *
 * IDENTIFICATION
 *	  src/util/crc32c.c
 *
 *-------------------------------------------------------------------------
 */
#include "util/crc32c.h"

#include <string.h>

#define CRC32C_POLY_REFLECTED	UINT32_C(0x82F63B78)

static uint32_t crc_table[4][256];
static int	crc_table_ready = 0;

/* fills crc_table; T0 is the bytewise table, Tk shifts Tk-1 by one byte */
static void
crc32c_build_table(void)
{
	uint32_t	i;
	int			k;

	for (i = 0; i < 256; i++)
	{
		uint32_t	c = i;

		for (k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ CRC32C_POLY_REFLECTED : c >> 1;
		crc_table[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 4; k++)
			crc_table[k][i] = (crc_table[k - 1][i] >> 8) ^
				crc_table[0][crc_table[k - 1][i] & 0xFF];
	crc_table_ready = 1;
}

/* the table-driven CRC, any x86-64 (and the oracle of the unit test) */
uint32_t
tapas_crc32c_update_sw(uint32_t crc, const void *data, size_t len)
{
	const unsigned char *p = data;

	if (!crc_table_ready)
		crc32c_build_table();
	while (len >= 4)
	{
		uint32_t	w = crc ^ ((uint32_t) p[0] | (uint32_t) p[1] << 8 |
							   (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24);

		crc = crc_table[3][w & 0xFF] ^ crc_table[2][(w >> 8) & 0xFF] ^
			crc_table[1][(w >> 16) & 0xFF] ^ crc_table[0][w >> 24];
		p += 4;
		len -= 4;
	}
	while (len-- > 0)
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xFF];
	return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>

/*
 * The SSE 4.2 CRC32 instruction computes exactly this CRC (Castagnoli,
 * reflected), 8 bytes per instruction: about 20 times the table's speed,
 * which matters for the copies of the audit state (hundreds of MB,
 * recon/rowspace_serial.c).  Chosen at run time: the build targets
 * baseline x86-64.
 */
__attribute__((target("sse4.2")))
static uint32_t
crc32c_update_hw(uint32_t crc, const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t	c = crc;

	while (len > 0 && ((uintptr_t) p & 7) != 0)
	{
		c = _mm_crc32_u8((uint32_t) c, *p++);
		len--;
	}
	while (len >= 8)
	{
		uint64_t	w;

		memcpy(&w, p, 8);
		c = _mm_crc32_u64(c, w);
		p += 8;
		len -= 8;
	}
	while (len-- > 0)
		c = _mm_crc32_u8((uint32_t) c, *p++);
	return (uint32_t) c;
}

static int	crc_hw = -1;		/* unknown yet */

uint32_t
tapas_crc32c_update(uint32_t crc, const void *data, size_t len)
{
	if (crc_hw < 0)
	{
		__builtin_cpu_init();
		crc_hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
	}
	return crc_hw ? crc32c_update_hw(crc, data, len)
		: tapas_crc32c_update_sw(crc, data, len);
}
#else
uint32_t
tapas_crc32c_update(uint32_t crc, const void *data, size_t len)
{
	return tapas_crc32c_update_sw(crc, data, len);
}
#endif

uint32_t
tapas_crc32c(const void *data, size_t len)
{
	return tapas_crc32c_final(tapas_crc32c_update(tapas_crc32c_init(), data, len));
}
