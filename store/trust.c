// SPDX-License-Identifier: MIT
/*
 * cache_trust.c - the per-user key, the input digest and the database MAC that
 * let ftana tell its own cache databases from planted ones (why: cache_trust.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/trust.h"
#include "store/siphash.h"
#include "format/ftz_int.h"
#include "common/msg.h"

static uint8_t key[SIPHASH_KEY_LEN];
static enum { KEY_UNKNOWN, KEY_KEPT, KEY_THIS_RUN } key_state;

int trust_cache_dir(char *out, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME"), *tmp = getenv("TMPDIR");
	struct passwd *pw = NULL;
	bool shared = false;
	int n;

	if (!(xdg && *xdg) && !(home && *home) && (pw = getpwuid(getuid())) && pw->pw_dir &&
	    *pw->pw_dir && strcmp(pw->pw_dir, "/") && !access(pw->pw_dir, W_OK))
		home = pw->pw_dir; /* the account's home when the environment has none */
	if (xdg && *xdg) {
		n = snprintf(out, len, "%s/ftana", xdg);
	} else if (home && *home) {
		n = snprintf(out, len, "%s/.cache/ftana", home);
	} else { /* no home at all: TMPDIR (else /tmp), a directory of this user's own */
		n = snprintf(out, len, "%s/ftana-cache-%u", tmp && *tmp ? tmp : "/tmp",
			     (unsigned)getuid());
		shared = true;
	}
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	if (shared) {
		struct stat st;

		if (mkdir(out, 0700) < 0 && errno != EEXIST)
			return -errno;
		/* in a directory others write to: ours, not a link, nobody else's to read */
		if (lstat(out, &st) < 0)
			return -errno;
		if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077))
			return -EPERM;
		return 0;
	}
	for (char *s = out + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(out, 0700); /* existing directories keep their mode */
			*s = '/';
		}
	if (mkdir(out, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* The key file, if it is ours alone: 0, -ENOENT, -EPERM (not private), -EIO. */
static int read_key(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) || st.st_size != SIPHASH_KEY_LEN) {
		close(fd);
		return -EPERM;
	}
	n = read(fd, key, sizeof(key));
	close(fd);
	return n == (ssize_t)sizeof(key) ? 0 : -EIO;
}

static int random_key(void)
{
	return getrandom(key, sizeof(key), 0) == (ssize_t)sizeof(key) ? 0 : -EIO;
}

/* Write a new key beside PATH and link it in: link() never replaces a key that
 * another ftana created meanwhile (then that one is read and used). */
static int create_key(const char *path)
{
	char tmp[PATH_MAX];
	sigset_t stop, saved;
	int fd, rc;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if (random_key() < 0)
		return -EIO;
	/* Ctrl-C waits until the temporary name is gone again (a few system calls). */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, &saved);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
	} else {
		rc = write(fd, key, sizeof(key)) == (ssize_t)sizeof(key) && !fsync(fd) ? 0 : -EIO;
		if (close(fd) < 0 && !rc)
			rc = -EIO;
		if (!rc && link(tmp, path) < 0 && errno != EEXIST)
			rc = -errno;
		unlink(tmp);
	}
	sigprocmask(SIG_SETMASK, &saved, NULL);
	return rc;
}

static const uint8_t *the_key(void)
{
	char dir[PATH_MAX - 8], path[PATH_MAX];
	int rc;

	if (key_state != KEY_UNKNOWN)
		return key;
	rc = trust_cache_dir(dir, sizeof(dir)); /* dir is filled in even when mkdir failed */
	snprintf(path, sizeof(path), "%s/key", rc == -ENAMETOOLONG ? "~/.cache/ftana" : dir);
	if (!rc) {
		rc = read_key(path);
		if (rc == -ENOENT && !(rc = create_key(path)))
			rc = read_key(path);
	}
	if (!rc) {
		key_state = KEY_KEPT;
		return key;
	}
	msg_warn("cannot keep the cache key %s (%s); caches are rebuilt every time",
		path, rc == -EPERM ? "not a private file of this user" : strerror(-rc));
	key_state = KEY_THIS_RUN;
	if (random_key() < 0)
		abort(); /* no randomness from the kernel: nothing here can be signed */
	return key;
}

bool trust_key_persistent(void)
{
	the_key();
	return key_state == KEY_KEPT;
}

static void feed_u64(struct siphash *h, uint64_t v)
{
	uint8_t b[8];

	put_le64(b, v);
	siphash_update(h, b, sizeof(b));
}

/* A .ftz: file header and section headers (their CRC fields cover the payloads). */
static int feed_ftz(struct siphash *h, int fd, uint64_t size)
{
	uint8_t hdr[FTZ_SEC_HDR_LEN];
	uint64_t pos = FTZ_FILE_HDR_LEN;
	struct ftz_sec_hdr sec;

	if (pread(fd, hdr, FTZ_FILE_HDR_LEN, 0) != FTZ_FILE_HDR_LEN)
		return 0; /* shorter than a header: its size is all there is */
	siphash_update(h, hdr, FTZ_FILE_HDR_LEN);
	while (pos + FTZ_SEC_HDR_LEN <= size) {
		if (pread(fd, hdr, sizeof(hdr), pos) != (ssize_t)sizeof(hdr))
			return -1;
		if (ftz_sec_hdr_decode(hdr, &sec) < 0)
			break; /* damage: the size and mtime cover the rest */
		siphash_update(h, hdr, sizeof(hdr));
		if (sec.stored_len > size)
			break;
		pos += FTZ_SEC_HDR_LEN + sec.stored_len;
	}
	return 0;
}

static int feed_all(struct siphash *h, int fd)
{
	static uint8_t buf[1 << 20];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		siphash_update(h, buf, n);
	return n < 0 ? -1 : 0;
}

static int feed_file(struct siphash *h, const char *path, enum input_kind kind)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -1;
	}
	feed_u64(h, kind);
	feed_u64(h, st.st_size);
	rc = kind == INPUT_FTZ ? feed_ftz(h, fd, st.st_size) : feed_all(h, fd);
	close(fd);
	return rc;
}

int trust_input_digest(const char *path, enum input_kind kind, uint64_t *digest)
{
	static const char domain[] = "ftana input digest 1";
	struct siphash h;
	int rc;

	siphash_init(&h, the_key());
	siphash_update(&h, domain, sizeof(domain));
	rc = feed_file(&h, path, kind);
	*digest = siphash_final(&h);
	return rc;
}

int trust_set_digest(char *const *paths, size_t n, uint64_t *digest)
{
	static const char domain[] = "ftana input set digest 1";
	struct siphash h;

	siphash_init(&h, the_key());
	siphash_update(&h, domain, sizeof(domain));
	feed_u64(&h, n);
	for (size_t i = 0; i < n; i++) {
		const char *base = strrchr(paths[i], '/');

		base = base ? base + 1 : paths[i];
		/* the name too: a segment's number is part of what the capture is */
		feed_u64(&h, strlen(base));
		siphash_update(&h, base, strlen(base));
		if (feed_file(&h, paths[i], INPUT_FTZ) < 0)
			return -1;
	}
	*digest = siphash_final(&h);
	return 0;
}

/* Every row of a query, each value with its type and length so no two differ alike. */
static int feed_rows(struct siphash *h, sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, CACHE_MAC_KEY, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < sqlite3_column_count(st); i++) {
			int type = sqlite3_column_type(st, i);
			uint8_t tag = type;

			siphash_update(h, &tag, 1);
			if (type == SQLITE_INTEGER) {
				feed_u64(h, sqlite3_column_int64(st, i));
			} else if (type != SQLITE_NULL) {
				const void *p = sqlite3_column_blob(st, i);
				int n = sqlite3_column_bytes(st, i);

				feed_u64(h, n);
				siphash_update(h, p, n);
			}
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int trust_db_mac(sqlite3 *db, uint64_t input_digest, const char *db_version, uint64_t *mac)
{
	static const char domain[] = "ftana cache mac 1";
	struct siphash h;

	siphash_init(&h, the_key());
	siphash_update(&h, domain, sizeof(domain));
	siphash_update(&h, db_version, strlen(db_version) + 1);
	feed_u64(&h, input_digest);
	if (feed_rows(&h, db, "SELECT type, name, tbl_name, rootpage, sql FROM main.sqlite_master"
		      " ORDER BY rowid") < 0 ||
	    feed_rows(&h, db, "SELECT key, value FROM main.meta WHERE key IS NOT ?1"
		      " ORDER BY key, value") < 0)
		return -1;
	*mac = siphash_final(&h);
	return 0;
}

bool trust_db_verify(sqlite3 *db, uint64_t input_digest, const char *db_version)
{
	sqlite3_stmt *st;
	uint64_t mac, stored = 0;
	bool found = false;

	if (sqlite3_prepare_v2(db, "SELECT value FROM main.meta WHERE key = ?1", -1, &st, NULL))
		return false;
	sqlite3_bind_text(st, 1, CACHE_MAC_KEY, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT) {
		const char *hex = (const char *)sqlite3_column_text(st, 0);
		char *end;

		errno = 0;
		stored = strtoull(hex, &end, 16);
		found = !errno && strlen(hex) == 16 && !*end;
	}
	sqlite3_finalize(st);
	return found && !trust_db_mac(db, input_digest, db_version, &mac) && mac == stored;
}

int trust_db_sign(sqlite3 *db, uint64_t input_digest, const char *db_version)
{
	sqlite3_stmt *st;
	uint64_t mac;
	char hex[17];
	int rc;

	if (trust_db_mac(db, input_digest, db_version, &mac) < 0)
		return -1;
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)mac);
	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO main.meta VALUES (?1, ?2)", -1, &st, NULL))
		return -1;
	sqlite3_bind_text(st, 1, CACHE_MAC_KEY, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, hex, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	return rc;
}
