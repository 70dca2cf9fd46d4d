/*-------------------------------------------------------------------------
 *
 * persist.c
 *	  The ledger's durable file $PGDATA/pg_tapas/ledger.log.
 *
 * Why a file and not a table written by a background worker: the gate
 * must know that an answer is logged before it releases a single row,
 * inside the analyst's transaction, and whatever that transaction does
 * next (ROLLBACK included).  A worker would need a synchronous handshake
 * per statement and its own transaction and WAL flush; an append-only
 * file written under the ledger lock costs one write() (which survives
 * any crash of PostgreSQL) and, with tapas.ledger_sync = on, one
 * fdatasync() per statement (which survives power loss; with the default
 * off, the ledger flusher syncs within tapas.ledger_flush_delay), and has
 * no catalog dependency at startup, when the postmaster replays it.
 *
 * Preallocation: the file is extended TAPAS_LEDGER_EXTEND bytes of zeros
 * at a time (file_alloc), and frames are written over the zeros, so the
 * fdatasync of a statement flushes data only, not the file size in the
 * inode (about 60 us of the ~200 us each sync costs on ext4).  A zero
 * tail is therefore a clean end of the log; the postmaster trims it at a
 * clean shutdown.
 *
 * Protocol (format in lstore/ledger_file.h):
 *	- append: under the exclusive ledger lock, the statement's frame is
 *	  written at offset file_size with pwrite, then applied to shared
 *	  memory and file_size advanced; after the lock is released, the
 *	  frame is fdatasync'd if tapas.ledger_sync and not yet covered by
 *	  another backend's sync (synced_upto: group commit, so concurrent
 *	  statements do not queue behind one another's sync), and only then
 *	  does the gate release rows.  Without tapas.ledger_sync, the ledger
 *	  flusher (flusher.c) syncs within tapas.ledger_flush_delay.  A failed write puts the zeros back and
 *	  raises an error: nothing is logged and no row is released.  A crash
 *	  after the write keeps the frame, so every answer that was released
 *	  is in the file (a frame whose statement then failed is kept too:
 *	  logging an answer that was not sent is the safe side).
 *	- startup (postmaster, shmem_startup_hook, also after a crash
 *	  restart): replay every frame; a torn tail (incomplete frame or CRC
 *	  mismatch) ends the replay; unless all zeros (preallocated), it is cut
 *	  off after saving the whole file
 *	  as ledger.log.damaged for the DBA (LOG for a small torn tail, WARNING
 *	  when more was lost).  A valid frame that does not fit the configured
 *	  limits stops the server (FATAL) rather than drop logged answers.
 *	- rewrite (tapas.reset): the store without the table is dumped to
 *	  ledger.log.tmp, fsync'd and renamed over ledger.log (durable_rename),
 *	  so the removed entries leave the disk too; file_generation tells
 *	  backends to reopen.  A cancel (or statement_timeout) between two
 *	  frames of the dump removes ledger.log.tmp and raises 57014 before
 *	  anything changed; the in-memory reset after the rename cannot be
 *	  cancelled, and costs what the store holds (lstore/ledger_reset.c).
 * Each backend keeps its own descriptor (ledger_fd), reopened when
 * file_generation changes.  tapas.ledger_sync uses fdatasync directly, so
 * it holds even with fsync = off (PostgreSQL's own data then is not
 * crash-safe, but the ledger is).
 *
 * IDENTIFICATION
 *	  src/ledger/persist.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file_perm.h"
#include "miscadmin.h"
#include "storage/fd.h"

#include "lstore/ledger_file.h"
#include "ledger/ledger.h"
#include "ledger/ledger_int.h"
#include "policy/policy.h"
#include "policy/status_error.h"

#define TAPAS_LEDGER_EXTEND	(1024 * 1024)	/* bytes of zeros added at a time */

/* this backend's descriptor of the ledger file, and its generation */
static int	ledger_fd = -1;
static uint64 ledger_fd_generation = 0;

/* writes all of buf at offset; false with errno set on failure */
static bool
write_all(int fd, const void *buf, size_t len, off_t offset)
{
	const char *p = buf;

	while (len > 0)
	{
		ssize_t		n = pwrite(fd, p, len, offset);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
		{
			if (n == 0)
				errno = ENOSPC;
			return false;
		}
		p += n;
		len -= n;
		offset += n;
	}
	return true;
}

/* reads the whole file at fd into a malloc'd buffer (NULL, errno on failure) */
static uint8 *
read_all(int fd, size_t *len)
{
	struct stat st;
	uint8	   *buf;
	size_t		done = 0;

	if (fstat(fd, &st) != 0)
		return NULL;
	*len = (size_t) st.st_size;
	buf = malloc(*len > 0 ? *len : 1);
	if (buf == NULL)
		return NULL;
	while (done < *len)
	{
		ssize_t		n = pread(fd, buf + done, *len - done, done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
		{
			free(buf);
			if (n == 0)
				errno = EIO;
			return NULL;
		}
		done += n;
	}
	return buf;
}

/* saves a copy of a damaged file image next to the ledger, for the DBA */
static void
save_damaged(const uint8 *buf, size_t len)
{
	int			fd = OpenTransientFile(TAPAS_LEDGER_DAMAGED,
									   O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);

	if (fd < 0 || !write_all(fd, buf, len, 0) || pg_fsync(fd) != 0)
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("could not save damaged tapas ledger to \"%s\": %m",
						TAPAS_LEDGER_DAMAGED)));
	if (fd >= 0)
		CloseTransientFile(fd);
}

/* true if buf[from, len) is all zeros: preallocated, never written */
static bool
zero_tail(const uint8 *buf, size_t from, size_t len)
{
	for (size_t i = from; i < len; i++)
		if (buf[i] != 0)
			return false;
	return true;
}

/* replays the image into the store and reports; returns the valid length */
static size_t
replay_image(TapasLedgerShared *sh, const uint8 *buf, size_t len, bool *zeros)
{
	tapas_ledger_store_t *store = TAPAS_LEDGER_STORE(sh);
	size_t		good;
	uint64		nframes;
	const char *reason;
	tapas_status st = tapas_ledger_file_replay(store, buf, len, &good, &nframes, &reason);

	if (st == TAPAS_ELIMIT || st == TAPAS_ENOMEM)
		ereport(FATAL,
				(errcode(tapas_status_errcode(st)),
				 errmsg("tapas ledger file \"%s\" does not fit the configured ledger",
						TAPAS_LEDGER_FILE),
				 errdetail("%s (record at byte %zu).",
						   reason ? reason : tapas_status_message(st), good),
				 errhint("Raise tapas.ledger_memory, tapas.ledger_max_cells or tapas.max_records and start the server again.")));
	if (good < len && good >= TAPAS_LEDGER_FILE_HEADER_LEN && zero_tail(buf, good, len))
		*zeros = true;			/* a clean end: keep the preallocated zeros */
	else if (good < len)
	{
		ereport(st == TAPAS_OK && len - good < 64 * 1024 ? LOG : WARNING,
				(errmsg("tapas ledger file \"%s\" is cut at byte %zu of %zu",
						TAPAS_LEDGER_FILE, good, len),
				 errdetail("%s.", reason ? reason : "The rest does not decode"),
				 errhint("A torn last record comes from a crash during its write; its statement released no rows.  The whole file was saved as \"%s\".",
						 TAPAS_LEDGER_DAMAGED)));
		save_damaged(buf, len);
	}
	if (good < TAPAS_LEDGER_FILE_HEADER_LEN)
	{
		/* not even a valid header: start a fresh ledger file */
		tapas_ledger_store_limits_t lim = store->lim;

		tapas_ledger_store_init(store, sh->store_size, &lim);
		good = 0;
		*zeros = false;
	}
	ereport(LOG,
			(errmsg("tapas ledger: %llu cells of %u tables replayed from \"%s\"",
					(unsigned long long) store->ncells, store->ntables,
					TAPAS_LEDGER_FILE)));
	return good;
}

void
tapas_ledger_persist_load(TapasLedgerShared *sh)
{
	int			fd;
	uint8	   *buf;
	size_t		len = 0,
				good;
	bool		zeros = false;

	sh->file_ok = false;
	if (MakePGDirectory(TAPAS_LEDGER_DIR) < 0 && errno != EEXIST)
	{
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", TAPAS_LEDGER_DIR)));
		return;
	}
	fd = BasicOpenFile(TAPAS_LEDGER_FILE, O_RDWR | O_CREAT | PG_BINARY);
	if (fd < 0 || (buf = read_all(fd, &len)) == NULL)
	{
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("could not read tapas ledger file \"%s\": %m", TAPAS_LEDGER_FILE)));
		if (fd >= 0)
			close(fd);
		return;
	}
	good = replay_image(sh, buf, len, &zeros);
	/*
	 * A 0.2 file (version 1): what is appended from now on is version 2,
	 * so the file says so before anything is.  Its old records stay as
	 * they are; replay reads both versions (lstore/ledger_file.h).
	 */
	if (good >= TAPAS_LEDGER_FILE_HEADER_LEN && tapas_ledger_file_is_v1(buf, len))
	{
		if (!write_all(fd, TAPAS_LEDGER_FILE_MAGIC, TAPAS_LEDGER_FILE_HEADER_LEN, 0) || pg_fsync(fd) != 0)
		{
			ereport(LOG,
					(errcode_for_file_access(),
					 errmsg("could not upgrade tapas ledger file \"%s\": %m", TAPAS_LEDGER_FILE)));
			free(buf);
			close(fd);
			return;
		}
		ereport(LOG,
				(errmsg("tapas ledger file \"%s\" upgraded to version 2; tables logged before are shared by all databases until tapas.reset",
						TAPAS_LEDGER_FILE)));
	}
	free(buf);
	if (good == 0)
	{
		if (!write_all(fd, TAPAS_LEDGER_FILE_MAGIC, TAPAS_LEDGER_FILE_HEADER_LEN, 0))
			good = 0;
		else
			good = TAPAS_LEDGER_FILE_HEADER_LEN;
	}
	if (!zeros && good != len && (ftruncate(fd, good) != 0 || pg_fsync(fd) != 0))
	{
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("could not truncate tapas ledger file \"%s\": %m", TAPAS_LEDGER_FILE)));
		close(fd);
		return;
	}
	close(fd);
	fsync_fname(TAPAS_LEDGER_DIR, true);
	sh->file_size = good;
	sh->file_alloc = zeros ? len : good;
	sh->file_generation++;
	sh->sync_generation = sh->file_generation;
	sh->synced_upto = good;
	sh->file_ok = good >= TAPAS_LEDGER_FILE_HEADER_LEN;
}

/* opens (or reopens after a rewrite) this backend's descriptor */
static void
ensure_open(TapasLedgerShared *sh)
{
	if (ledger_fd >= 0 && ledger_fd_generation == sh->file_generation)
		return;
	if (ledger_fd >= 0)
		close(ledger_fd);
	ledger_fd = BasicOpenFile(TAPAS_LEDGER_FILE, O_WRONLY | PG_BINARY);
	if (ledger_fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open tapas ledger file \"%s\": %m", TAPAS_LEDGER_FILE)));
	ledger_fd_generation = sh->file_generation;
}

/*
 * Makes room for len more bytes after file_size: extends the file with
 * zeros to the next multiple of TAPAS_LEDGER_EXTEND past the end.  False
 * (errno set) if the disk has no room for that; the caller then writes
 * the record alone, so the last free space is still used.
 */
static bool
ensure_room(TapasLedgerShared *sh, size_t len)
{
	static const uint8 zeros[8192];
	uint64		need = sh->file_size + len;
	uint64		to = need + TAPAS_LEDGER_EXTEND - need % TAPAS_LEDGER_EXTEND;

	if (sh->file_alloc >= need)
		return true;
	while (sh->file_alloc < to)
	{
		size_t		n = Min(sizeof(zeros), to - sh->file_alloc);

		if (!write_all(ledger_fd, zeros, n, (off_t) sh->file_alloc))
			return false;
		sh->file_alloc += n;
	}
	return true;
}

/* the current end of the file (the caller holds the ledger lock) */
TapasLedgerMark
tapas_ledger_persist_end(TapasLedgerShared *sh)
{
	TapasLedgerMark m = {sh->file_generation, sh->file_size};

	ensure_open(sh);
	return m;
}

/*
 * Writes one statement's frame at file_size (the caller holds the lock
 * exclusively) and returns where it ends; the caller passes that to
 * tapas_ledger_persist_sync once the lock is released.
 */
TapasLedgerMark
tapas_ledger_persist_append(TapasLedgerShared *sh, const uint8 *frame, size_t len)
{
	ensure_open(sh);
	if (!ensure_room(sh, len) && ftruncate(ledger_fd, (off_t) sh->file_size) == 0)
		sh->file_alloc = sh->file_size; /* no room for 1 MB: the record alone */
	if (!write_all(ledger_fd, frame, len, (off_t) sh->file_size))
	{
		int			save_errno = errno;

		/* leave no partial frame behind the valid end */
		if (ftruncate(ledger_fd, (off_t) sh->file_size) != 0)
			ereport(WARNING,
					(errcode_for_file_access(),
					 errmsg("could not truncate tapas ledger file \"%s\": %m",
							TAPAS_LEDGER_FILE)));
		else
			sh->file_alloc = sh->file_size;
		errno = save_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write tapas ledger file \"%s\": %m", TAPAS_LEDGER_FILE),
				 errdetail("The statement's answers were not logged, so none is released.")));
	}
	sh->file_size += len;
	sh->file_alloc = Max(sh->file_alloc, sh->file_size);
	return tapas_ledger_persist_end(sh);
}

/*
 * Whether the file is durable up to mark: a later generation means a
 * rewrite (tapas.reset) came after the frame was written, and a rewrite
 * fsyncs all it keeps.
 */
static bool
durable(TapasLedgerShared *sh, TapasLedgerMark mark)
{
	bool		done;

	SpinLockAcquire(&sh->sync_mutex);
	done = sh->sync_generation != mark.generation || sh->synced_upto >= mark.upto;
	SpinLockRelease(&sh->sync_mutex);
	return done;
}

/*
 * Returns once the file is durable up to mark (called without the ledger
 * lock, with this process's descriptor opened on mark's generation by
 * tapas_ledger_persist_append or _end).  A frame another process's
 * fdatasync already covered is not synced again: group commit.
 */
void
tapas_ledger_persist_sync(TapasLedgerShared *sh, TapasLedgerMark mark)
{
	if (durable(sh, mark))
		return;
	if (fdatasync(ledger_fd) != 0)
		ereport(data_sync_elevel(ERROR),
				(errcode_for_file_access(),
				 errmsg("could not fsync tapas ledger file \"%s\": %m", TAPAS_LEDGER_FILE)));
	SpinLockAcquire(&sh->sync_mutex);
	if (sh->sync_generation == mark.generation && sh->synced_upto < mark.upto)
		sh->synced_upto = mark.upto;
	SpinLockRelease(&sh->sync_mutex);
}

/* bytes of the current file known durable */
uint64
tapas_ledger_persist_synced(TapasLedgerShared *sh)
{
	uint64		n;

	SpinLockAcquire(&sh->sync_mutex);
	n = sh->sync_generation == sh->file_generation ? sh->synced_upto : 0;
	SpinLockRelease(&sh->sync_mutex);
	return n;
}

/*
 * Postmaster exit: after a clean shutdown no backend is left, so the
 * preallocated zeros can go, and the file ends at its last frame.
 */
void
tapas_ledger_persist_shutdown(int code, Datum arg)
{
	TapasLedgerShared *sh = (TapasLedgerShared *) DatumGetPointer(arg);
	int			fd;

	if (code != 0 || !sh->file_ok || sh->file_alloc == sh->file_size)
		return;
	fd = BasicOpenFile(TAPAS_LEDGER_FILE, O_WRONLY | PG_BINARY);
	if (fd < 0 || ftruncate(fd, (off_t) sh->file_size) != 0 || pg_fsync(fd) != 0)
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("could not trim tapas ledger file \"%s\": %m", TAPAS_LEDGER_FILE)));
	if (fd >= 0)
		close(fd);
}

/* tapas_ledger_file_dump callback: appends to the temporary file */
typedef struct DumpTarget
{
	int			fd;
	uint64		size;
	int			save_errno;
	bool		canceled;		/* stopped for a pending cancel */
} DumpTarget;

static int
dump_write(void *arg, const void *data, size_t len)
{
	DumpTarget *t = arg;

	/*
	 * A cancel stops the rewrite between frames: the new file is not
	 * renamed yet, so the ledger (file and memory) is as it was.
	 */
	if (tapas_cancel_requested())
	{
		t->canceled = true;
		return -1;
	}
	if (!write_all(t->fd, data, len, (off_t) t->size))
	{
		t->save_errno = errno;
		return -1;
	}
	t->size += len;
	return 0;
}

void
tapas_ledger_persist_rewrite(TapasLedgerShared *sh, const tapas_ledger_store_t *store,
							 uint64 skip)
{
	DumpTarget	t = {-1, 0, 0, false};
	tapas_status st;

	t.fd = OpenTransientFile(TAPAS_LEDGER_TMPFILE, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (t.fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", TAPAS_LEDGER_TMPFILE)));
	st = tapas_ledger_file_dump_without(store, skip, dump_write, &t);
	/* always synced, even without tapas.ledger_sync: see persist_sync */
	if (st != TAPAS_OK || pg_fsync(t.fd) != 0)
	{
		int			save_errno = st == TAPAS_OK ? errno : t.save_errno;

		CloseTransientFile(t.fd);
		unlink(TAPAS_LEDGER_TMPFILE);
		if (t.canceled)
		{
			CHECK_FOR_INTERRUPTS();
			ereport(ERROR,
					(errcode(ERRCODE_QUERY_CANCELED),
					 errmsg("canceling the rewrite of the tapas ledger file")));
		}
		errno = save_errno;
		/* any other status is the write callback failing: errno says why */
		if (st == TAPAS_ENOMEM)
			tapas_raise_status(st, "could not rewrite the tapas ledger file", NULL);
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", TAPAS_LEDGER_TMPFILE)));
	}
	CloseTransientFile(t.fd);
	durable_rename(TAPAS_LEDGER_TMPFILE, TAPAS_LEDGER_FILE, ERROR);
	sh->file_size = sh->file_alloc = t.size;
	SpinLockAcquire(&sh->sync_mutex);
	sh->file_generation++;
	sh->sync_generation = sh->file_generation;
	sh->synced_upto = t.size;
	SpinLockRelease(&sh->sync_mutex);
}
