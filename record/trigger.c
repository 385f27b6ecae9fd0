/* SPDX-License-Identifier: MIT */
/*
 * trigger.c - the flight recorder: --kernel-ring (the instance's buffer in
 * overwrite mode, read only once recording stops) and --trigger (a kernel
 * `traceoff` event trigger that stops the recording at the incident).
 *
 * The trigger is the kernel's, in our instance's events/SYS/EVENT/trigger:
 * traceoff switches the instance's tracing_on to 0 in the kernel, at the event,
 * so nothing after the incident overwrites what came before. traceoff is a
 * post-trigger (measured on 6.18: the firing event itself is in the buffer).
 * ftrec notices it by reading tracing_on every TRIGGER_POLL_NS.
 *
 * The trigger file is written in append mode (opening it with O_TRUNC removes
 * every trigger of the event) through the undo log, whose replay appends
 * "!traceoff..." -- the kernel removes a trigger by its command name, so the
 * same text with '!' before it is the removal. Our instance is new, so a
 * trigger the user has on the same event elsewhere (top level, another
 * instance) is a different file and is never touched.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "record/rec_int.h"
#include "record/tfs.h"

int trigger_parse(struct record_opts *o, const char *spec)
{
	const char *cond = strstr(spec, " if ");
	size_t name_len = cond ? (size_t)(cond - spec) : strlen(spec);
	while (name_len && (spec[name_len - 1] == ' ' || spec[name_len - 1] == '\t'))
		name_len--;
	char *name = strndup(spec, name_len), *colon = name ? strchr(name, ':') : NULL;
	const char *filter = cond ? cond + 4 : NULL;
	while (filter && (*filter == ' ' || *filter == '\t'))
		filter++;

	int ret = 0;
	if (!name)
		ret = msg_error("out of memory");
	else if (o->stop_if)
		ret = msg_error("--trigger cannot go with --stop-if (one stop per recording)");
	else if (o->trigger)
		ret = msg_error("--trigger given twice (one trigger event per recording)");
	else if (!colon || colon == name || !colon[1] || strpbrk(name, "/*?[], \t"))
		ret = msg_error("--trigger '%s': expected 'SYSTEM:EVENT[ if FILTER]', one event, no globs", spec);
	else if (filter && !*filter)
		ret = msg_error("--trigger '%s': empty FILTER after 'if'", spec);
	if (ret < 0) {
		free(name);
		return ret;
	}
	o->trigger = spec;
	o->trigger_system = strndup(name, (size_t)(colon - name));
	o->trigger_event = strdup(colon + 1);
	o->trigger_filter = filter ? strdup(filter) : NULL;
	free(name);
	return 0;
}

/* The trigger event's directory must exist in our instance; then it is recorded like an -e. */
int trigger_add_event(struct rec *r)
{
	const struct record_opts *o = r->o;
	char p[PATH_MAX];
	if (!o->trigger)
		return 0;
	if (!tfs_exists(tfs_path(p, "%s/events/%s/%s/trigger", r->dir, o->trigger_system, o->trigger_event)))
		return msg_error("--trigger %s:%s: no such event with a trigger file (see %s/available_events)",
				 o->trigger_system, o->trigger_event, r->root);
	return instance_add_event(r, o->trigger_system, o->trigger_event, NULL);
}

/* After the events are enabled: the traceoff trigger, through the undo log. */
int trigger_install(struct rec *r)
{
	const struct record_opts *o = r->o;
	if (!o->trigger)
		return 0;
	char p[PATH_MAX], text[4096], undo[4100];
	tfs_path(p, "%s/events/%s/%s/trigger", r->dir, o->trigger_system, o->trigger_event);
	/* ":1": fires once, so --post's switching tracing back on is not undone by the next hit. */
	snprintf(text, sizeof(text), "traceoff:1%s%s\n", o->trigger_filter ? " if " : "",
		 o->trigger_filter ? o->trigger_filter : "");
	snprintf(undo, sizeof(undo), "!%s", text);
	char *log_before = instance_error_log(r, p);
	int ret = undo_append(r->undo, p, text, undo);
	if (ret < 0) {
		char *reason = log_before ? instance_kernel_reason(r, p, log_before) : NULL;
		msg_error("--trigger '%s': the kernel refused the trigger in %s: %s%s%s", o->trigger, p,
			  strerror(-ret), reason ? " -- kernel says: " : "", reason ? reason : "");
		free(reason);
	}
	free(log_before);
	return ret < 0 ? -1 : 0;
}

/* Has the kernel switched our instance's tracing off (the traceoff trigger fired)? */
int trigger_fired(struct rec *r)
{
	char p[PATH_MAX];
	char *v = tfs_read_trimmed(tfs_path(p, "%s/tracing_on", r->dir));
	int fired = v && !strcmp(v, "0");
	free(v);
	return fired;
}

/*
 * Options that cannot go together, checked once the preset filled the options.
 * 0, or -1 after a one-line error.
 */
int trigger_check_options(const struct record_opts *o)
{
	if (o->stop_comm && !o->stop_if)
		return msg_error("-n COMM names the tasks a --stop-if counts: give --stop-if "
				 "(-p or -L limit what is recorded)");
	if (o->post > 0 && !o->trigger)
		return msg_error("--post needs --trigger (it counts from the trigger)");
	if (o->post > 0 && o->kernel_ring)
		return msg_error("--post cannot go with --kernel-ring: the ring is drained at the trigger");
	if (o->function_profile && (o->kernel_ring || o->trigger))
		return msg_error("--kernel-ring and --trigger record events; --profile records no events");
	return 0;
}
