/* SPDX-License-Identifier: MIT */
/*
 * doc.c - a report's output document (report.h): text tables one after another,
 * one CSV table, or one JSON document whose keys are the report's tables, closed
 * with every warning of the run (common/msg.h).
 */
#include <stdio.h>

#include "common/msg.h"
#include "reports/report.h"
#include "store/print.h"

/* The JSON document starts with its first table (or at the end): a report that fails
 * before writing anything leaves stdout empty. */
void doc_begin(struct report_ctx *ctx)
{
	if (ctx->fmt != OUT_JSON || ctx->doc_open)
		return;
	ctx->doc_open = true;
	fputs("{\"report\":", stdout);
	print_json_string(stdout, ctx->def->name);
	fputs(",\"file\":", stdout);
	print_json_string(stdout, ctx->file);
	if (ctx->nr_files > 1) {
		/* a series: "file" stays its first file (one string, as for one file) */
		fputs(",\"files\":[", stdout);
		for (size_t i = 0; i < ctx->nr_files; i++) {
			if (i)
				fputc(',', stdout);
			print_json_string(stdout, ctx->files[i]);
		}
		fputc(']', stdout);
	}
}

void doc_end(struct report_ctx *ctx)
{
	if (ctx->fmt != OUT_JSON)
		return;
	doc_begin(ctx);
	const char *const *warnings;
	size_t n = msg_warnings(&warnings);

	fputs(",\"warnings\":[", stdout);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', stdout);
		print_json_string(stdout, warnings[i]);
	}
	fputs("]}\n", stdout);
}

void doc_key(struct report_ctx *ctx, const char *key)
{
	doc_begin(ctx);
	fputc(',', stdout);
	print_json_string(stdout, key);
	fputc(':', stdout);
	ctx->tables++;
}

int doc_table_stmt(struct report_ctx *ctx, const char *key, sqlite3_stmt *st)
{
	unsigned flags = (ctx->no_header ? PRINT_NO_HEADER : 0) | PRINT_UNITS;

	if (ctx->fmt == OUT_JSON) {
		doc_key(ctx, key);
		ctx->tables--; /* counted below */
	} else if (ctx->tables && ctx->fmt == OUT_TEXT) {
		fputc('\n', stdout);
	} else if (ctx->tables) {
		return msg_error("CSV holds one table: this run asks for more");
	}
	ctx->tables++;
	if (print_rows_flags(st, ctx->fmt, stdout, flags))
		return msg_error("%s", sqlite3_errmsg(ctx->db));
	return 0;
}

int doc_table(struct report_ctx *ctx, const char *key, const char *sql)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(ctx->db, sql, -1, &st, NULL) != SQLITE_OK)
		return msg_error("%s", sqlite3_errmsg(ctx->db));
	int rc = doc_table_stmt(ctx, key, st);
	sqlite3_finalize(st);
	return rc;
}

