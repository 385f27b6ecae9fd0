/* SPDX-License-Identifier: MIT */
/* strlist.c - a growable list of owned strings (struct strlist, record.h). */
#include <stdlib.h>
#include <string.h>

#include "common/cmd.h"
#include "common/msg.h"
#include "record/record.h"

void strlist_add(struct strlist *l, const char *s)
{
	char **v = realloc(l->v, (l->n + 2) * sizeof(*v));
	char *copy = strdup(s);

	if (!v || !copy)
		msg_die(CMD_EXIT_ERROR, "out of memory");
	v[l->n++] = copy;
	v[l->n] = NULL;
	l->v = v;
}

void strlist_free(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
