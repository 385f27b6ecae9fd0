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

#endif
