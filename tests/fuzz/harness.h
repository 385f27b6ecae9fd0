/* SPDX-License-Identifier: MIT */
/*
 * harness.h - what the libFuzzer targets (tests/fuzz/fuzz_*.c) share: run ftana's
 * whole read path on one input, in this process, so that a crash anywhere in it
 * -- our code or a library it calls -- is the fuzzer's finding.
 */
#ifndef FUZZ_HARNESS_H
#define FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Write DATA to a private temporary file named "input" + SUFFIX (".ftz", ".dat"),
 * then: import it into a new database (reader -> decode -> import, import_ftz
 * in-process: ftana's own import may run in a child, which would hide a crash from
 * the fuzzer), `ftana info` and `ftana sql` on that database, and `report tpoint`
 * (libtraceevent's print formats) on the input. Output goes to /dev/null.
 */
void fuzz_run_ftana(const uint8_t *data, size_t size, const char *suffix);

/*
 * For trace.dat: libtracecmd and libtraceevent's kbuffer crash on some files in
 * code we cannot change (tracecmd_open_head's option strings, kbuffer on a bad
 * sub-buffer). ftana contains those crashes in its import child (one line, no
 * database); in here they would stop every fuzzing run at the library's first
 * known bug. So with LIBRARY_FIRST the input is first decoded (dec_open, every
 * dec_next: libtracecmd's whole read path, through our thin backend) in a forked
 * child, and only an input that survives it goes on in-process: the importer,
 * info, sql and report tpoint -- our code -- still see every input the library
 * can read. The regression inputs of those library crashes are replayed through
 * ftana itself by test_fuzz.sh (contained: exit 1 or 3, one line).
 */
void fuzz_run_ftana_library_first(const uint8_t *data, size_t size, const char *suffix);

/*
 * DATA as a database given to ftana directly (`ftana db` wrote it elsewhere, or
 * anyone did): `ftana info`, `ftana sql` and every report on it, in this process.
 * Every table, view and value in it is the file's: the step budget, the authorizer and
 * each report's checks of what it reads stand between it and ftana (store/sqlguard.h).
 */
void fuzz_run_ftana_db(const uint8_t *data, size_t size);

/*
 * Re-sign a .ftz in place: every section whose header and payload are present gets
 * correct checksums (and, uncompressed, raw_len = stored_len). Mutated bytes almost
 * never keep a CRC-32C right, so without this every input would stop at the first
 * section header. Damage stays reachable: a length past the end (a truncated
 * payload), a bad zstd frame, lengths over 1 GiB.
 */
void fuzz_resign(uint8_t *buf, size_t size);

/*
 * DATA as the files of one capture set (decode/capture_set.h): byte 0 says a disk
 * ring (bit 0 set: the head r.ftz, then segments r.ring-000001.ftz, ...: the seeds'
 * ring_prefix) or a
 * --rotate series (NAME-0001.ftz, ...); the rest is cut into up to FUZZ_SET_MAX
 * members at each FUZZ_SET_SEP, each re-signed. Then as fuzz_run_ftana: imported
 * (the set read together, its keys checked: capture_id, numbering, gaps), `ftana
 * info` and `ftana sql` on it.
 */
#define FUZZ_SET_SEP "\n--ftz-set-member--\n"
#define FUZZ_SET_MAX 8
void fuzz_run_ftana_set(const uint8_t *data, size_t size);

#endif
