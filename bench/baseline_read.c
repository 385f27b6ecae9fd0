// SPDX-License-Identifier: MIT
/*
 * baseline_read - the simplest recorder that keeps every event, as the yardstick
 * for ftrec's CPU cost (bench/record.sh):
 *
 *   baseline_read -i INSTANCE -e SYSTEM:EVENT -o FILE -- COMMAND [ARGS...]
 *
 * In its own tracefs instance it enables the event and runs one thread per CPU
 * doing blocking read()s of whole sub-buffers from per_cpu/cpuN/trace_pipe_raw,
 * appending them to FILE, while COMMAND runs. When COMMAND exits, tracing is
 * switched off, the threads are interrupted and drain their CPU non-blocking.
 * No compression, no metadata: just the copy loop every recorder must do.
 * Prints "page_size N" and "pages N" on stdout. The instance is always removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <tracefs.h>

struct reader {
	pthread_t thread;
	int cpu, in_fd, out_fd;
	size_t page_size;
	atomic_bool draining;  /* set by the thread once it saw the stop request */
	long pages;
	int error;
};

static atomic_bool stop;
static volatile sig_atomic_t interrupted;

static void on_wakeup(int sig) { /* only makes a blocked read() return EINTR */ }
static void on_stop_signal(int sig) { interrupted = 1; }

/* One whole sub-buffer per read(); O_APPEND keeps each page's write atomic. */
static int copy_page(struct reader *r, void *page)
{
	ssize_t n = read(r->in_fd, page, r->page_size);

	if (n < 0)
		return -errno;
	if (n == 0)
		return -EAGAIN;
	if (write(r->out_fd, page, n) != n)
		return -EIO;
	r->pages++;
	return 0;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	void *page = malloc(r->page_size);
	int rc;

	if (!page) {
		r->error = ENOMEM;
		return NULL;
	}
	while (!atomic_load(&stop)) {
		rc = copy_page(r, page);
		if (rc < 0 && rc != -EINTR && rc != -EAGAIN) {
			r->error = -rc;
			break;
		}
	}
	atomic_store(&r->draining, true);
	fcntl(r->in_fd, F_SETFL, fcntl(r->in_fd, F_GETFL) | O_NONBLOCK);
	while ((rc = copy_page(r, page)) == 0 || rc == -EINTR)
		;
	if (rc != -EAGAIN && !r->error)
		r->error = -rc;
	free(page);
	return NULL;
}

static pid_t run_command(char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "baseline_read: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static int open_cpu(struct tracefs_instance *inst, int cpu)
{
	char name[64], *path;
	int fd;

	snprintf(name, sizeof(name), "per_cpu/cpu%d/trace_pipe_raw", cpu);
	path = tracefs_instance_get_file(inst, name);
	fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	tracefs_put_tracing_file(path);
	return fd;
}

int main(int argc, char **argv)
{
	const char *inst_name = NULL, *event = NULL, *out = NULL;
	char *system = NULL, *name;
	struct tracefs_instance *inst;
	struct reader *readers;
	int nr_cpus = sysconf(_SC_NPROCESSORS_CONF), opt, status = 0, rc = 1, out_fd;
	long long subbuf_kb = 0;
	size_t page_size;
	pid_t child;
	long total = 0;

	while ((opt = getopt(argc, argv, "+i:e:o:")) != -1) {
		if (opt == 'i') inst_name = optarg;
		else if (opt == 'e') event = optarg;
		else if (opt == 'o') out = optarg;
		else return 1;
	}
	if (!inst_name || !event || !out || optind >= argc || !strchr(event, ':')) {
		fprintf(stderr, "usage: baseline_read -i INSTANCE -e SYSTEM:EVENT -o FILE -- COMMAND...\n");
		return 1;
	}
	system = strdup(event);
	name = strchr(system, ':');
	*name++ = '\0';

	out_fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (out_fd < 0) {
		fprintf(stderr, "baseline_read: %s: %s\n", out, strerror(errno));
		return 1;
	}
	inst = tracefs_instance_create(inst_name);
	if (!inst) {
		fprintf(stderr, "baseline_read: cannot create instance %s: %s\n", inst_name, strerror(errno));
		return 1;
	}
	page_size = tracefs_instance_file_read_number(inst, "buffer_subbuf_size_kb", &subbuf_kb) == 0
		    ? (size_t)subbuf_kb * 1024 : (size_t)getpagesize();
	signal(SIGINT, on_stop_signal);
	signal(SIGTERM, on_stop_signal);
	sigaction(SIGUSR1, &(struct sigaction){ .sa_handler = on_wakeup }, NULL); /* no SA_RESTART */

	readers = calloc(nr_cpus, sizeof(*readers));
	tracefs_trace_off(inst);
	if (tracefs_event_enable(inst, system, name) < 0) {
		fprintf(stderr, "baseline_read: cannot enable %s\n", event);
		goto out;
	}
	for (int c = 0; c < nr_cpus; c++) {
		readers[c] = (struct reader){ .cpu = c, .out_fd = out_fd, .page_size = page_size,
					      .in_fd = open_cpu(inst, c) };
		if (readers[c].in_fd < 0 || pthread_create(&readers[c].thread, NULL, reader_main, &readers[c])) {
			fprintf(stderr, "baseline_read: cpu %d: cannot start reader\n", c);
			nr_cpus = c;
			atomic_store(&stop, true);
			goto join;
		}
	}
	tracefs_trace_on(inst);
	child = run_command(argv + optind);
	while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR && !interrupted)
		;
	tracefs_trace_off(inst);
	rc = child > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
	atomic_store(&stop, true);
join:
	/* A signal may land just before a thread enters read(): repeat until it is seen. */
	for (int c = 0; c < nr_cpus; c++) {
		while (!atomic_load(&readers[c].draining)) {
			pthread_kill(readers[c].thread, SIGUSR1);
			usleep(1000);
		}
		pthread_join(readers[c].thread, NULL);
		close(readers[c].in_fd);
		total += readers[c].pages;
		if (readers[c].error) {
			fprintf(stderr, "baseline_read: cpu %d: %s\n", c, strerror(readers[c].error));
			rc = 1;
		}
	}
	printf("page_size %zu\npages %ld\n", page_size, total);
out:
	if (close(out_fd) < 0)
		rc = 1;
	tracefs_event_disable(inst, NULL, NULL);
	if (tracefs_instance_destroy(inst) < 0) {
		fprintf(stderr, "baseline_read: cannot remove instance %s\n", inst_name);
		rc = 1;
	}
	tracefs_instance_free(inst);
	free(readers);
	free(system);
	return rc;
}
