/* SPDX-License-Identifier: MIT */
/*
 * cache_trust.h - is a cache database one that this user's ftana made from this
 * very input? Size, mtime and version prove nothing: anyone who can write beside
 * the capture (or who sends it, with a .db next to it) can plant a database that
 * matches them. So ftana signs what it builds: a SipHash-2-4 MAC, under a per-user
 * secret key, over
 *   - a digest of the input (a .ftz: its file header and every section header,
 *     whose CRC-32C fields cover the payloads -- cheap, one small read per
 *     section; a trace.dat: all its bytes, as it has no checksums of its own),
 *   - the database layout version,
 *   - the database's schema (every sqlite_schema row: a view or trigger anyone
 *     added would change it) and its meta table,
 * stored as meta 'cache_mac'. A database without a valid MAC is rebuilt, never
 * used. The rows of the event tables are not covered (hashing the whole database
 * on every open would cost more than it guards: rows are data shown escaped,
 * the code a database can carry lives in its schema).
 *
 * The key: 16 random bytes in $XDG_CACHE_HOME/ftana/key or ~/.cache/ftana/key,
 * created once with mode 0600 and used only if it is a regular file of ours that
 * nobody else can read. When it cannot be kept (no writable home) a key made for
 * this process signs its caches: they are rebuilt every time, never trusted later.
 */
#ifndef CACHE_TRUST_H
#define CACHE_TRUST_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CACHE_MAC_KEY "cache_mac"

enum input_kind { INPUT_FTZ, INPUT_TRACEDAT };

/* The keyed digest of the input file PATH; 0, or -1 if it cannot be read (errno). */
int trust_input_digest(const char *path, enum input_kind kind, uint64_t *digest);

/*
 * The keyed digest of a capture made of several .ftz files (a disk ring's head and
 * segments, a --rotate series), in their order: each file's name and digest, so a
 * new, removed or changed segment is a different input. 0, or -1 (errno).
 */
int trust_set_digest(char *const *paths, size_t n, uint64_t *digest);

/* The MAC of the database db for an input of that digest. 0, or -1 on an SQL error. */
int trust_db_mac(sqlite3 *db, uint64_t input_digest, const char *db_version, uint64_t *mac);

/* Is the database's stored MAC the one it should have? False on any doubt. */
bool trust_db_verify(sqlite3 *db, uint64_t input_digest, const char *db_version);

/* Store the MAC into db's meta table (the connection must be writable). 0 or -1. */
int trust_db_sign(sqlite3 *db, uint64_t input_digest, const char *db_version);

/* ftana's per-user cache directory ($XDG_CACHE_HOME/ftana or ~/.cache/ftana), where
 * the key lives and caches go when the capture's directory is not writable; created
 * (0700) if missing. 0, or -errno. */
int trust_cache_dir(char *out, size_t len);

/* True when the key is kept on disk (a cache can be trusted by a later run). */
bool trust_key_persistent(void);

#endif
