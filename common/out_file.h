/* SPDX-License-Identifier: MIT */
/*
 * out_file.h - how ftana writes a file it makes (`ftana export`, `ftana convert`, the
 * reports' pictures with -o):
 * into a temp file beside the final name, renamed over it only once complete, so a
 * failed or killed run never leaves half a file under the name asked for; never
 * onto the input itself (same file by device and inode, a link included), nor over
 * anything but a regular file (a device, FIFO or symbolic link would be replaced).
 * The name "-" is standard output, in every command: the output is made in a temp
 * file all the same, in a directory of the user's own made for it under $TMPDIR (mode
 * 0700: no other user can plant or read what is built there, by name or not), copied
 * to stdout whole once complete, both removed before the copy (a reader that stops
 * early, SIGPIPE, leaves nothing), so nothing reaches stdout when the work fails.
 */
#ifndef FTANA_OUT_FILE_H
#define FTANA_OUT_FILE_H

#include <stdbool.h>
#include <stdio.h>

struct out_file {
	const char *path; /* the final name ("-": standard output) */
	char *tmp;        /* the temp file beside it (for stdout in tmpdir), until committed or aborted */
	char *tmpdir;     /* stdout's private directory under $TMPDIR, or NULL */
	FILE *f;          /* open on tmp, for writing (seekable) */
};

/* Is PATH standard output ("-")? */
bool out_is_stdout(const char *path);

/*
 * May PATH be written as the output made from INPUT? Not when it is INPUT or
 * INPUT's cached database (INPUT.db), not when it is anything but a regular file
 * or a new name. Call it before the work, so a refusal costs nothing. 0, or -1
 * after a one-line error.
 */
int out_check(const char *path, const char *input);
/*
 * What a lower layer cannot know: does reading INPUT read PATH too (a segment name
 * of the ring INPUT is the head of, as its INFO names them)? The program sets it
 * (ftana: decode's cset_ring_segment_name); out_check then refuses such a PATH.
 */
void out_set_member_check(bool (*is_member)(const char *path, const char *input));
/* Open a temp file for PATH (after out_check). 0, or -1 after a one-line error. */
int out_open(struct out_file *o, const char *path, const char *input);
/*
 * Flush, sync and rename into place; for stdout, copy the temp file to stdout by its
 * name (so what was renamed over o->tmp is copied: a database is built by name, after
 * fclose(o->f) and o->f = NULL) and remove it. 0, or -1 after a one-line error (temp
 * removed; "write error on standard output" when stdout took less than all of it).
 */
int out_commit(struct out_file *o);
/* Close and remove the temp file (after an error). */
void out_abort(struct out_file *o);
/*
 * A new directory of the user's own (mode 0700) under $TMPDIR (else P_tmpdir), named
 * STEM.XXXXXX: what is built in it by name cannot be planted or read by another user,
 * as a name in a shared /tmp could be. malloc'd; NULL (errno set) when it cannot be made.
 */
char *out_private_dir(const char *stem);
/* DIR (from out_private_dir, emptied by whoever works in it) is removed if SIGINT,
 * SIGTERM or SIGHUP ends ftana before out_private_dir_done(DIR). */
void out_private_dir_pending(char *dir);
void out_private_dir_done(char *dir);

#endif
