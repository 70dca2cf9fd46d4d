/*-------------------------------------------------------------------------
 *
 * alerts_file.c
 *	  The alerts' durable file, $PGDATA/pg_tapas/alerts.log: one fsync'd frame
 *	  per alert (u32 payload length, u32 CRC-32C, a TapasAlert), replayed into
 *	  the ring at server start (alerts.c explains the protocol and versions).
 *
 * IDENTIFICATION
 *	  src/audit/alerts_file.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/fd.h"

#include "audit/alerts_int.h"
#include "util/crc32c.h"

/* replays the file into the ring (postmaster, at startup) */
void
tapas_alerts_file_load(AlertShared *sh)
{
	int			fd;
	struct stat st;
	char	   *buf;
	size_t		off,
				good;

	sh->next_id = 1;
	sh->oldest_id = 1;
	fd = OpenTransientFile(ALERT_FILE, O_RDWR | PG_BINARY);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || st.st_size < ALERT_MAGIC_LEN)
	{
		CloseTransientFile(fd);
		return;
	}
	buf = palloc(st.st_size);
	if (read(fd, buf, st.st_size) != st.st_size ||
		(memcmp(buf, ALERT_MAGIC, ALERT_MAGIC_LEN) != 0 &&
		 memcmp(buf, ALERT_MAGIC_V1, ALERT_MAGIC_LEN) != 0))
	{
		ereport(LOG,
				(errmsg("tapas: ignoring unreadable alert file \"%s\"", ALERT_FILE)));
		pfree(buf);
		CloseTransientFile(fd);
		return;
	}
	off = good = ALERT_MAGIC_LEN;
	while (off + 8 <= (size_t) st.st_size)
	{
		uint32		len,
					crc;
		TapasAlert	a;

		memcpy(&len, buf + off, 4);
		memcpy(&crc, buf + off + 4, 4);
		if ((len != sizeof(TapasAlert) && len != TAPAS_ALERT_V1_SIZE) ||
			off + 8 + len > (size_t) st.st_size ||
			tapas_crc32c(buf + off + 8, len) != crc)
			break;
		memset(&a, 0, sizeof(a));
		memcpy(&a, buf + off + 8, len);
		if (len == TAPAS_ALERT_V1_SIZE)
		{
			/* a 0.2 alert: one record, and a statement of its own */
			a.nrecords = a.nkeys = 1;
			a.record_keys[0] = a.record_key;
			a.stmt_head = 1;
		}
		if (a.alert_id != sh->next_id)
			break;
		a.notified = 1;
		*tapas_alerts_slot(sh, a.alert_id) = a;
		sh->next_id = a.alert_id + 1;
		off += 8 + len;
		good = off;
	}
	if (good < (size_t) st.st_size)
	{
		ereport(LOG,
				(errmsg("tapas: truncating alert file \"%s\" after %zu bytes (torn or damaged tail)",
						ALERT_FILE, good)));
		if (ftruncate(fd, good) != 0)
			ereport(LOG, (errcode_for_file_access(),
						  errmsg("could not truncate file \"%s\": %m", ALERT_FILE)));
	}
	sh->oldest_id = Max(1, sh->next_id - sh->nslots);
	/* a 0.2 file: appends from now on are whole TapasAlerts */
	if (memcmp(buf, ALERT_MAGIC_V1, ALERT_MAGIC_LEN) == 0 &&
		(pwrite(fd, ALERT_MAGIC, ALERT_MAGIC_LEN, 0) != ALERT_MAGIC_LEN || pg_fsync(fd) != 0))
		ereport(LOG, (errcode_for_file_access(),
					  errmsg("could not upgrade file \"%s\": %m", ALERT_FILE)));
	pfree(buf);
	CloseTransientFile(fd);
}

/* appends one frame and fsyncs; ERROR (nothing kept) on failure */
void
tapas_alerts_file_append(const TapasAlert *a)
{
	int			fd;
	char		frame[8 + sizeof(TapasAlert)];
	uint32		len = sizeof(TapasAlert);
	uint32		crc = tapas_crc32c(a, sizeof(TapasAlert));
	struct stat st;

	(void) MakePGDirectory(ALERT_DIR);
	fd = OpenTransientFile(ALERT_FILE, O_RDWR | O_CREAT | O_APPEND | PG_BINARY);
	if (fd < 0)
		ereport(ERROR, (errcode_for_file_access(),
						errmsg("could not open file \"%s\": %m", ALERT_FILE)));
	if (fstat(fd, &st) == 0 && st.st_size == 0 &&
		write(fd, ALERT_MAGIC, ALERT_MAGIC_LEN) != ALERT_MAGIC_LEN)
		ereport(ERROR, (errcode_for_file_access(),
						errmsg("could not write file \"%s\": %m", ALERT_FILE)));
	memcpy(frame, &len, 4);
	memcpy(frame + 4, &crc, 4);
	memcpy(frame + 8, a, sizeof(TapasAlert));
	if (write(fd, frame, sizeof(frame)) != (ssize_t) sizeof(frame) ||
		pg_fsync(fd) != 0)
		ereport(ERROR, (errcode_for_file_access(),
						errmsg("could not write file \"%s\": %m", ALERT_FILE)));
	CloseTransientFile(fd);
}
