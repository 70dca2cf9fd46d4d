/*-------------------------------------------------------------------------
 *
 * crc32c.h
 *	  CRC-32C (Castagnoli) for the pure-C kernels.
 *
 * The same polynomial (0x1EDC6F41, reflected 0x82F63B78) and conventions
 * as PostgreSQL's pg_crc32c: initial value 0xFFFFFFFF, final XOR
 * 0xFFFFFFFF, so tapas_crc32c("123456789", 9) = 0xE3069283.  Kernels may
 * not include PostgreSQL headers, hence this small copy (table-driven, or
 * the SSE 4.2 instruction where the CPU has it); it checksums the records
 * of the ledger file (ledger_file.c) and the copies of the row-space state
 * (rowspace_serial.c).
 *
 * IDENTIFICATION
 *	  src/util/crc32c.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_CRC32C_H
#define TAPAS_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32C of len bytes at data (data may be NULL when len is 0). */
extern uint32_t tapas_crc32c(const void *data, size_t len);

/*
 * Incremental form: crc = tapas_crc32c_init(); crc = tapas_crc32c_update(crc,
 * ...) any number of times; tapas_crc32c_final(crc) is the CRC of the
 * concatenation.
 */
#define tapas_crc32c_init()			UINT32_C(0xFFFFFFFF)
#define tapas_crc32c_final(crc)		((crc) ^ UINT32_C(0xFFFFFFFF))
extern uint32_t tapas_crc32c_update(uint32_t crc, const void *data, size_t len);

/* The portable table-driven update (tapas_crc32c_update uses SSE 4.2 where the CPU has it). */
extern uint32_t tapas_crc32c_update_sw(uint32_t crc, const void *data, size_t len);

#endif							/* TAPAS_CRC32C_H */
