// SPDX-License-Identifier: GPL-2.0
/*
 * uevent-bench: the cost of one prctl(PR_TASK_PERF_UEVENT) next to the
 * other ways a program can put a record into a trace, per call, in one
 * thread and in one thread per CPU.
 *
 * Rows (payload sizes from --sizes, default 8,64,512,4096):
 *   prctl-null    prctl(PR_GET_DUMPABLE): the prctl floor
 *   getppid       the syscall floor
 *   uevent-none   uevent, no listener anywhere
 *   uevent-other  uevent, one listener in the system, on another process
 *                 only (a child that sleeps and never emits): the caller
 *                 has none
 *   uevent-task   uevent, one listener: a dummy event on the thread itself
 *   uevent-cpu    uevent, one CPU-wide listener on the thread's CPU
 *   uevent-4      uevent, four listeners on the thread itself
 *   hdr-string    <perf/uevent.h>'s perf_uevent_string() of 64 bytes, nobody
 *                 listening: the thread's enable word says so, no system
 *                 call (skipped where the kernel has no enable word)
 *   hdr-range     perf_uevent_push() and perf_uevent_pop(), the pair as one
 *                 call, nobody listening
 *   hdr-counter   perf_uevent_counter(), nobody listening
 *   hdr-other     hdr-string while another process holds a listener on
 *                 itself: this thread's word stays 0
 *   hdr-task      perf_uevent_string() of <size> bytes, one listener on the
 *                 thread: uevent-task through the header
 *   hdr-off-string, hdr-off-range, hdr-off-counter
 *                 the same calls as hdr-string, hdr-range and hdr-counter
 *                 compiled with PERF_UEVENT_DISABLE (uevent-bench-off.c):
 *                 what is left is the call into that file
 *   marker        write(2) to tracefs trace_marker, tracing on (7.2 cuts a
 *                 marker to the ring's largest event, about 4050 bytes with
 *                 the default 4 KiB sub-buffers, after a failed reserve: a
 *                 4096-byte row is what a caller of that size gets)
 *   marker-raw    write(2) of <size> bytes to trace_marker_raw, the first
 *                 four being the id (all or nothing: not run past the
 *                 ring's largest event)
 *   user-events   write(2) of a user_events event "__rel_loc u8[] data"
 *                 (4-byte index, 4-byte rel_loc, payload) recorded by a
 *                 perf tracepoint event on the thread
 *   fork          fork(), the child's _exit(), waitpid(): no listener
 *   fork-inherit  the same with inherited listeners on the thread, as perf
 *                 record opens them on a workload: a dummy event with
 *                 attr.inherit = 1 on each CPU, opened before forking (a
 *                 per-task inherited event cannot be mmapped)
 *   fork-uevent   the same with attr.uevent = 1 as well: what inheriting a
 *                 uevent listener adds to a fork and an exit
 *   loop          1000 iterations of a two-instruction loop (x86-64): run
 *                 under QEMU's -icount shift=0 it reads 2000 and a few "ns"
 *                 per call, the proof that guest time counts instructions
 *
 * Under QEMU's -icount shift=0 guest time advances one nanosecond per guest
 * instruction executed, so every ns_per_call below is instructions per call
 * (scripts/bench.sh boots the guest that way; run it single-threaded).
 * The loop, the floors, the fork rows and the header's rows with nobody
 * listening do not depend on the size: they are measured once, at the
 * first size. A fork row's batch is 1/100 of
 * --calls.
 *
 * Listeners are what perf record opens: sample_id_all with tid, time, cpu
 * and identifier, a 2 MiB ring each. A batch never fills a ring; the ring
 * is drained between batches, outside the timed loop, and every record
 * is counted: a batch that delivers more or fewer records than calls,
 * or a lost record, makes the benchmark fail.
 *
 * For the decode-side comparison, --emit N emits N 64-byte string uevents
 * (type 1, as perf_uevent_printf() does) and --touch N touches N fresh
 * pages, one page fault each, for "perf record -e page-faults -c 1".
 *
 * The tracefs rows use tracefs as it is set up (scripts/guest-bench.sh
 * turns tracing on): this program changes no tracing setting.
 *
 * With --split NS a round's figure is the median of chunks of about NS ns
 * each instead of the batch's mean (see run_split()).
 *
 * Output: CSV lines on stdout, "row,size,threads,round,ns_per_call".
 * Exit status: 0 when every row ran or was skipped for a missing feature
 * (no tracefs, no user_events), 1 when a row is broken.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/perf_event.h>
#include <linux/user_events.h>

#include <perf/uevent.h>

#include "uevent-bench.h"

#ifndef PR_TASK_PERF_UEVENT
#define PR_TASK_PERF_UEVENT	82
#endif

#define TRACEFS		"/sys/kernel/tracing"
#define RING_PAGES	512			/* 2 MiB of data per listener */
#define MAX_THREADS	64
#define MAX_RINGS	4
#define SAMPLE_TYPE	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

enum row {
	ROW_PRCTL_NULL,
	ROW_GETPPID,
	ROW_UEVENT_NONE,
	ROW_UEVENT_OTHER,
	ROW_UEVENT_TASK,
	ROW_UEVENT_CPU,
	ROW_UEVENT_4,
	ROW_HDR_STRING,
	ROW_HDR_RANGE,
	ROW_HDR_COUNTER,
	ROW_HDR_OTHER,
	ROW_HDR_TASK,
	ROW_HDR_OFF_STRING,
	ROW_HDR_OFF_RANGE,
	ROW_HDR_OFF_COUNTER,
	ROW_MARKER,
	ROW_MARKER_RAW,
	ROW_USER_EVENTS,
	ROW_FORK,
	ROW_FORK_INHERIT,
	ROW_FORK_UEVENT,
	ROW_LOOP,
	NR_ROWS,
};

static const char * const row_names[NR_ROWS] = {
	"prctl-null", "getppid", "uevent-none", "uevent-other", "uevent-task",
	"uevent-cpu", "uevent-4", "hdr-string", "hdr-range", "hdr-counter",
	"hdr-other", "hdr-task", "hdr-off-string", "hdr-off-range", "hdr-off-counter",
	"marker", "marker-raw", "user-events", "fork", "fork-inherit",
	"fork-uevent", "loop",
};

#define LOOP_ITERATIONS	1000

/* The text of hdr-string: 64 bytes */
static const char hdr_text[] =
	"uevent-bench: a 64-byte string through <perf/uevent.h>'s helpers";

/* Rows measured once, at the first size: their cost has no payload. */
static bool sizeless(enum row row)
{
	return row == ROW_PRCTL_NULL || row == ROW_GETPPID ||
	       row == ROW_FORK || row == ROW_FORK_INHERIT ||
	       row == ROW_FORK_UEVENT || row == ROW_LOOP ||
	       (row >= ROW_HDR_STRING && row <= ROW_HDR_OTHER) ||
	       (row >= ROW_HDR_OFF_STRING && row <= ROW_HDR_OFF_COUNTER);
}

static bool uevent_row(enum row row)
{
	return (row >= ROW_UEVENT_NONE && row <= ROW_UEVENT_4) ||
	       row == ROW_FORK_UEVENT || row == ROW_HDR_TASK ||
	       row == ROW_HDR_OTHER;
}

/* The header's rows with nobody observing: they need the enable word */
static bool hdr_none_row(enum row row)
{
	return row >= ROW_HDR_STRING && row <= ROW_HDR_OTHER;
}

struct ring {
	int				fd;
	struct perf_event_mmap_page	*meta;
	unsigned char			*data;
	uint64_t			size;
};

static long page_size;
static int nr_cpus;

/* Shared by the threads of one measurement. */
static struct {
	enum row		row;
	size_t			size;
	int			threads;
	long			batch;
	long			split;			/* --split NS, or 0 */
	pthread_barrier_t	barrier;
	struct ring		cpu_rings[MAX_THREADS];	/* uevent-cpu */
	struct ring		other_ring;		/* uevent-other */
	pid_t			other_pid;
	int			marker_fd;
	int			ue_fd;			/* user_events_data */
	uint32_t		ue_index;
	uint64_t		ue_id;			/* tracepoint id */
	volatile uint32_t	ue_enabled;
	bool			failed;
} m;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "uevent-bench: %s/%zu/%d: ", row_names[m.row], m.size,
		m.threads);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	__atomic_store_n(&m.failed, true, __ATOMIC_RELAXED);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int ring_open(struct ring *r, struct perf_event_attr *attr, pid_t pid,
		     int cpu)
{
	size_t len = (RING_PAGES + 1) * page_size;

	r->fd = syscall(__NR_perf_event_open, attr, pid, cpu, -1,
			PERF_FLAG_FD_CLOEXEC);
	if (r->fd < 0)
		return -1;
	r->meta = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->meta == MAP_FAILED) {
		close(r->fd);
		r->fd = -1;
		return -1;
	}
	r->data = (unsigned char *)r->meta + page_size;
	r->size = RING_PAGES * page_size;
	return 0;
}

static void ring_close(struct ring *r)
{
	if (r->fd < 0)
		return;
	munmap(r->meta, (RING_PAGES + 1) * page_size);
	close(r->fd);
	r->fd = -1;
}

/*
 * Count the records of @type written since the last drain, fail on a
 * lost record, and drain.
 */
static long ring_drain(struct ring *r, uint32_t type)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	long n = 0;

	while (tail < head) {
		struct perf_event_header h;
		uint64_t off = tail % r->size;

		/* Headers are 8-byte aligned: never split by the wrap. */
		memcpy(&h, r->data + off, sizeof(h));
		if (h.size == 0)
			break;
		if (h.type == type)
			n++;
		else if (h.type == PERF_RECORD_LOST)
			fail("a record was lost");
		tail += h.size;
	}
	__atomic_store_n(&r->meta->data_tail, head, __ATOMIC_RELEASE);
	return n;
}

static void uevent_attr(struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->sample_type = SAMPLE_TYPE;
	attr->sample_id_all = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->uevent = 1;
}

/* What perf record opens on a workload it forks: inherited by children. */
static void inherit_attr(struct perf_event_attr *attr, bool uevent)
{
	uevent_attr(attr);
	attr->inherit = 1;
	attr->uevent = uevent;
}

static void tracepoint_attr(struct perf_event_attr *attr, uint64_t id)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = id;
	attr->sample_period = 1;
	attr->sample_type = SAMPLE_TYPE | PERF_SAMPLE_RAW;
	attr->sample_id_all = 1;
}

/*
 * Register "uevbench __rel_loc u8[] data" and find its tracepoint id: a
 * dynamic array, as fixed ones stop at 1024 bytes.
 */
static int user_event_register(size_t size)
{
	static const char name[] = "uevbench __rel_loc u8[] data";
	static bool done;
	char path[256], buf[32];
	struct user_reg reg;
	int fd;
	ssize_t n;

	(void)size;
	if (done)
		return 0;

	if (m.ue_fd < 0)
		m.ue_fd = open(TRACEFS "/user_events_data", O_RDWR | O_CLOEXEC);
	if (m.ue_fd < 0)
		return -1;
	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.enable_bit = 0;
	reg.enable_size = sizeof(m.ue_enabled);
	reg.enable_addr = (uintptr_t)&m.ue_enabled;
	reg.name_args = (uintptr_t)name;
	if (ioctl(m.ue_fd, DIAG_IOCSREG, &reg) < 0) {
		perror("uevent-bench: user_events DIAG_IOCSREG");
		return -1;
	}
	m.ue_index = reg.write_index;

	snprintf(path, sizeof(path), TRACEFS "/events/user_events/uevbench/id");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	m.ue_id = strtoull(buf, NULL, 10);
	done = true;
	return 0;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static long fork_exit_wait(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(0);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return 0;
}

static inline long loop(void)
{
#ifdef __x86_64__
	unsigned long n = LOOP_ITERATIONS;

	/* Two instructions per iteration, whatever the compiler does. */
	asm volatile("1:\n\tdec %0\n\tjnz 1b" : "+r" (n) : : "cc");
	return 0;
#else
	return -1;
#endif
}

static inline long emit(unsigned char *buf, size_t size)
{
	switch (m.row) {
	case ROW_PRCTL_NULL:
		return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) < 0 ? -1 : 0;
	case ROW_GETPPID:
		return syscall(__NR_getppid) < 0 ? -1 : 0;
	case ROW_UEVENT_NONE:
	case ROW_UEVENT_OTHER:
	case ROW_UEVENT_TASK:
	case ROW_UEVENT_CPU:
	case ROW_UEVENT_4:
		return prctl(PR_TASK_PERF_UEVENT, 0x8000, size,
			     (unsigned long)buf, 0);
	case ROW_HDR_STRING:
	case ROW_HDR_OTHER:
		return perf_uevent_string(hdr_text);
	case ROW_HDR_RANGE:
		return perf_uevent_push("bench") || perf_uevent_pop() ? -1 : 0;
	case ROW_HDR_COUNTER:
		return perf_uevent_counter(42, "bench");
	case ROW_HDR_TASK:
		return perf_uevent_string((const char *)buf);
	case ROW_HDR_OFF_STRING:
		return bench_off_string(hdr_text);
	case ROW_HDR_OFF_RANGE:
		return bench_off_range();
	case ROW_HDR_OFF_COUNTER:
		return bench_off_counter(42);
	case ROW_MARKER:
		return write(m.marker_fd, buf, size) > 0 ? 0 : -1;
	case ROW_MARKER_RAW:
		/* The 4-byte id is buf[0..3]. */
		return write(m.marker_fd, buf, size) == (ssize_t)size ? 0 : -1;
	case ROW_USER_EVENTS:
		return write(m.ue_fd, buf, size + 8) == (ssize_t)(size + 8) ?
		       0 : -1;
	case ROW_FORK:
	case ROW_FORK_INHERIT:
	case ROW_FORK_UEVENT:
		return fork_exit_wait();
	case ROW_LOOP:
		return loop();
	default:
		return -1;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Time the batch in chunks of about m.split ns (@est ns per call, from the
 * warm-up) and return the median of the chunks' ns per call. Under QEMU's
 * -icount shift=0 a timer tick lands every few million instructions, in
 * every batch but not in every chunk: the median leaves it out.
 */
static double run_split(unsigned char *buf, double est)
{
	long chunk = est > 0 ? (long)(m.split / est) : 1, done = 0, n = 0, i, k;
	double *v, med;
	uint64_t t0, t1;

	if (chunk < 1)
		chunk = 1;
	if (chunk > m.batch)
		chunk = m.batch;
	v = calloc((m.batch + chunk - 1) / chunk, sizeof(*v));
	if (!v) {
		fail("out of memory");
		return 0;
	}
	while (done < m.batch) {
		k = m.batch - done < chunk ? m.batch - done : chunk;
		t0 = now_ns();
		for (i = 0; i < k; i++)
			if (__builtin_expect(emit(buf, m.size), 0))
				break;
		t1 = now_ns();
		if (i < k) {
			fail("emit: %s", strerror(errno));
			break;
		}
		v[n++] = (double)(t1 - t0) / k;
		done += k;
	}
	qsort(v, n, sizeof(*v), cmp_double);
	med = !n ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	return med;
}

struct thread {
	pthread_t	tid;
	int		idx;
	double		ns_per_call;
};

static void *thread_main(void *arg)
{
	struct thread *t = arg;
	struct ring rings[MAX_THREADS];	/* MAX_RINGS, or one per CPU */
	struct perf_event_attr attr;
	unsigned char *buf;
	int nr_rings = 0, i;
	long warm = m.batch / 10 + 1, want = m.batch, n, got;
	uint32_t type = PERF_RECORD_UEVENT;
	uint64_t t0, t1;

	pin(t->idx % nr_cpus);
	for (i = 0; i < MAX_THREADS; i++)
		rings[i].fd = -1;

	/* The payload, after the 4-byte index or id for the tracefs rows. */
	buf = aligned_alloc(64, m.size + 64);
	memset(buf, 'u', m.size + 64);
	if (m.row == ROW_USER_EVENTS) {
		/* rel_loc: length << 16 | offset from the end of the field. */
		uint32_t loc = (uint32_t)m.size << 16;

		memcpy(buf, (const void *)&m.ue_index, 4);
		memcpy(buf + 4, &loc, 4);
	} else if (m.row == ROW_MARKER_RAW) {
		memcpy(buf, &(uint32_t){ 0x1234 }, 4);
	} else if (m.row == ROW_HDR_TASK) {
		buf[m.size] = '\0';	/* a string of size bytes */
	}

	switch (m.row) {
	case ROW_UEVENT_TASK:
	case ROW_HDR_TASK:
		nr_rings = 1;
		break;
	case ROW_UEVENT_4:
		nr_rings = 4;
		break;
	case ROW_USER_EVENTS:
		nr_rings = 1;
		type = PERF_RECORD_SAMPLE;
		break;
	case ROW_FORK_INHERIT:
	case ROW_FORK_UEVENT:
		/* Nobody emits: the listeners must stay empty. */
		nr_rings = nr_cpus;
		want = 0;
		break;
	default:
		break;
	}
	for (i = 0; i < nr_rings; i++) {
		int cpu = -1;

		if (m.row == ROW_USER_EVENTS) {
			tracepoint_attr(&attr, m.ue_id);
		} else if (m.row == ROW_FORK_INHERIT ||
			   m.row == ROW_FORK_UEVENT) {
			inherit_attr(&attr, m.row == ROW_FORK_UEVENT);
			cpu = i;
		} else {
			uevent_attr(&attr);
		}
		if (ring_open(&rings[i], &attr, 0, cpu)) {
			fail("perf_event_open/mmap: %s", strerror(errno));
			nr_rings = i;
			break;
		}
	}

	pthread_barrier_wait(&m.barrier);	/* 1: set up */
	t0 = now_ns();
	for (n = 0; n < warm && !m.failed; n++)
		if (emit(buf, m.size))
			fail("emit: %s", strerror(errno));
	t1 = now_ns();
	for (i = 0; i < nr_rings; i++)
		ring_drain(&rings[i], type);
	pthread_barrier_wait(&m.barrier);	/* 2: warmed up */
	pthread_barrier_wait(&m.barrier);	/* 3: the CPU rings are drained */

	if (m.split) {
		t->ns_per_call = run_split(buf, (double)(t1 - t0) / warm);
	} else {
		t0 = now_ns();
		for (n = 0; n < m.batch; n++)
			if (__builtin_expect(emit(buf, m.size), 0))
				break;
		t1 = now_ns();
		if (n < m.batch)
			fail("emit: %s", strerror(errno));
		t->ns_per_call = (double)(t1 - t0) / m.batch;
	}
	pthread_barrier_wait(&m.barrier);	/* 4: measured */

	for (i = 0; i < nr_rings; i++) {
		got = ring_drain(&rings[i], type);
		if (got != want)
			fail("listener %d got %ld records for %ld calls", i,
			     got, m.batch);
	}
	for (i = 0; i < nr_rings; i++)
		ring_close(&rings[i]);
	free(buf);
	return NULL;
}

/*
 * Returns 1 when the row cannot run here, 2 when it cannot at this size,
 * -1 when it is broken.
 */
/*
 * The kernel's gate for uevents stays on for a second after the last
 * attr.uevent event closes (a deferred static key): a row that measures
 * "nobody listens" starts only once that second has passed since a row
 * that listened.
 */
#define GATE_OFF_NS	1100000000LL

static long long listened_until_ns;

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static bool listening_row(enum row row)
{
	return uevent_row(row) && row != ROW_UEVENT_NONE;
}

static void wait_gate_off(enum row row)
{
	long long left;

	if (listening_row(row))
		return;
	left = listened_until_ns - mono_ns();
	if (left > 0)
		nanosleep(&(struct timespec){ left / 1000000000LL,
					      left % 1000000000LL }, NULL);
}

static int measure(enum row row, size_t size, int threads, long batch,
		   int round)
{
	struct thread th[MAX_THREADS];
	struct perf_event_attr attr;
	double sum = 0;
	int i, ret = 0, pipefd[2], other_pipe = -1;

	m.row = row;
	m.size = size;
	m.threads = threads;
	m.batch = batch;
	m.failed = false;
	m.marker_fd = -1;
	m.other_ring.fd = -1;
	m.other_pid = -1;
	for (i = 0; i < nr_cpus; i++)
		m.cpu_rings[i].fd = -1;
	wait_gate_off(row);

	switch (row) {
	case ROW_UEVENT_OTHER:
	case ROW_HDR_OTHER:
		/* A listener on a child that waits for its pipe to close. */
		if (pipe2(pipefd, O_CLOEXEC)) {
			fail("pipe: %s", strerror(errno));
			return -1;
		}
		m.other_pid = fork();
		if (m.other_pid == 0) {
			char c;

			close(pipefd[1]);
			while (read(pipefd[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
		close(pipefd[0]);
		other_pipe = pipefd[1];
		if (m.other_pid < 0) {
			fail("fork: %s", strerror(errno));
			ret = -1;
			goto out;
		}
		uevent_attr(&attr);
		if (ring_open(&m.other_ring, &attr, m.other_pid, -1)) {
			fail("perf_event_open/mmap on another process: %s",
			     strerror(errno));
			ret = -1;
			goto out;
		}
		break;
	case ROW_LOOP:
#ifndef __x86_64__
		return 1;
#endif
		break;
	case ROW_UEVENT_CPU:
		uevent_attr(&attr);
		for (i = 0; i < nr_cpus; i++)
			if (ring_open(&m.cpu_rings[i], &attr, -1, i)) {
				fail("CPU-wide perf_event_open/mmap: %s",
				     strerror(errno));
				ret = -1;
				goto out;
			}
		break;
	case ROW_MARKER:
	case ROW_MARKER_RAW:
		if (row == ROW_MARKER_RAW && (long)size > page_size - 64)
			return 2;
		m.marker_fd = open(row == ROW_MARKER ? TRACEFS "/trace_marker" :
				   TRACEFS "/trace_marker_raw",
				   O_WRONLY | O_CLOEXEC);
		if (m.marker_fd < 0)
			return 1;
		break;
	case ROW_USER_EVENTS:
		if (user_event_register(size))
			return 1;
		break;
	case ROW_HDR_STRING:
	case ROW_HDR_RANGE:
	case ROW_HDR_COUNTER:
		/*
		 * A word follows a CPU-wide listener's close from a workqueue:
		 * wait up to a second for it, or the row measures the prctl
		 */
		for (i = 0; i < 100 && perf_uevent_enabled(); i++)
			usleep(10000);
		if (perf_uevent_enabled()) {
			fprintf(stderr, "uevent-bench: %s: the enable word says someone listens\n",
				row_names[row]);
			return 1;
		}
		break;
	default:
		break;
	}

	/* The main thread takes part in the threads' four barriers. */
	pthread_barrier_init(&m.barrier, NULL, threads + 1);
	for (i = 0; i < threads; i++) {
		th[i].idx = i;
		pthread_create(&th[i].tid, NULL, thread_main, &th[i]);
	}
	pthread_barrier_wait(&m.barrier);
	pthread_barrier_wait(&m.barrier);
	for (i = 0; i < nr_cpus; i++)
		if (m.cpu_rings[i].fd >= 0)
			ring_drain(&m.cpu_rings[i], PERF_RECORD_UEVENT);
	pthread_barrier_wait(&m.barrier);
	pthread_barrier_wait(&m.barrier);
	if (row == ROW_UEVENT_CPU) {
		long got = 0;

		for (i = 0; i < nr_cpus; i++)
			got += ring_drain(&m.cpu_rings[i], PERF_RECORD_UEVENT);
		if (got != batch * threads)
			fail("CPU-wide listeners got %ld records for %ld calls",
			     got, batch * threads);
	}
	if (row == ROW_UEVENT_OTHER || row == ROW_HDR_OTHER) {
		long got = ring_drain(&m.other_ring, PERF_RECORD_UEVENT);

		if (got)
			fail("the other process's listener got %ld records", got);
	}
	for (i = 0; i < threads; i++) {
		pthread_join(th[i].tid, NULL);
		sum += th[i].ns_per_call;
	}
	pthread_barrier_destroy(&m.barrier);
	if (m.failed) {
		ret = -1;
		goto out;
	}
	printf("%s,%zu,%d,%d,%.1f\n", row_names[row], size, threads, round,
	       sum / threads);
	fflush(stdout);
out:
	for (i = 0; i < nr_cpus; i++)
		ring_close(&m.cpu_rings[i]);
	ring_close(&m.other_ring);
	if (other_pipe >= 0)
		close(other_pipe);
	if (m.other_pid > 0)
		waitpid(m.other_pid, NULL, 0);
	if (listening_row(row))
		listened_until_ns = mono_ns() + GATE_OFF_NS;
	if (m.marker_fd >= 0)
		close(m.marker_fd);
	return ret;
}

static int emit_strings(long n)
{
	char msg[64];
	long i;

	for (i = 0; i < n; i++) {
		snprintf(msg, sizeof(msg), "uevent-bench: string number %-32ld", i);
		if (prctl(PR_TASK_PERF_UEVENT, 1, sizeof(msg),
			  (unsigned long)msg, 0)) {
			perror("uevent-bench: prctl(PR_TASK_PERF_UEVENT)");
			return 1;
		}
	}
	return 0;
}

static int touch_pages(long n)
{
	volatile char *p = mmap(NULL, n * page_size, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long i;

	if (p == MAP_FAILED) {
		perror("uevent-bench: mmap");
		return 1;
	}
	for (i = 0; i < n; i++)
		p[i * page_size] = 1;
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: uevent-bench [--smoke] [--rounds N] [--calls N] [--sizes a,b,..]\n"
		"                    [--threads a,b,..] [--rows name,..] [--split NS]\n"
		"       uevent-bench --emit N | --touch N\n");
	exit(2);
}

static int parse_list(const char *s, long *out, int max)
{
	int n = 0;
	char *end;

	while (*s && n < max) {
		out[n++] = strtol(s, &end, 0);
		if (*end != ',' && *end != '\0')
			usage();
		s = *end ? end + 1 : end;
	}
	return n;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "smoke", no_argument, NULL, 's' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "calls", required_argument, NULL, 'c' },
		{ "sizes", required_argument, NULL, 'S' },
		{ "threads", required_argument, NULL, 't' },
		{ "rows", required_argument, NULL, 'R' },
		{ "split", required_argument, NULL, 'p' },
		{ "emit", required_argument, NULL, 'e' },
		{ "touch", required_argument, NULL, 'T' },
		{ }
	};
	long sizes[16] = { 8, 64, 512, 4096 }, threads[8] = { 1, 0 };
	int nr_sizes = 4, nr_threads = 2, rounds = 9, opt, r, s, t, ret;
	long calls = 10000;
	bool want[NR_ROWS];
	bool skipped[NR_ROWS] = { };
	int broken = 0;
	enum row row;

	page_size = sysconf(_SC_PAGESIZE);
	nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (nr_cpus > MAX_THREADS)
		nr_cpus = MAX_THREADS;
	threads[1] = nr_cpus;
	for (row = 0; row < NR_ROWS; row++)
		want[row] = true;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			rounds = 1;
			calls = 50;
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'c':
			calls = atol(optarg);
			break;
		case 'p':
			m.split = atol(optarg);
			break;
		case 'S':
			nr_sizes = parse_list(optarg, sizes, 16);
			break;
		case 't':
			nr_threads = parse_list(optarg, threads, 8);
			break;
		case 'R': {
			char *list = strdup(optarg), *tok, *save;

			for (row = 0; row < NR_ROWS; row++)
				want[row] = false;
			for (tok = strtok_r(list, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				for (row = 0; row < NR_ROWS; row++)
					if (!strcmp(tok, row_names[row]))
						break;
				if (row == NR_ROWS)
					usage();
				want[row] = true;
			}
			free(list);
			break;
		}
		case 'e':
			return emit_strings(atol(optarg));
		case 'T':
			return touch_pages(atol(optarg));
		default:
			usage();
		}
	}
	if (rounds < 1 || calls < 1 || nr_sizes < 1 || nr_threads < 1 ||
	    m.split < 0)
		usage();
	for (t = 0; t < nr_threads; t++)
		if (threads[t] < 1 || threads[t] > MAX_THREADS)
			usage();
	m.ue_fd = -1;

	/* A kernel without the series rejects the option: skip, not broken. */
	if (prctl(PR_TASK_PERF_UEVENT, 0, 0, 0, 0)) {
		fprintf(stderr, "uevent-bench: uevent rows skipped: %s\n",
			strerror(errno));
		for (row = 0; row < NR_ROWS; row++)
			if (uevent_row(row))
				skipped[row] = true;
	}
	/*
	 * The kernel took no enable word (the header's word holds a state
	 * above 1): with nobody listening, the header's rows would measure a
	 * cached "unsupported" or the prctl.
	 */
	if (!perf_uevent_supported() || perf_uevent__word_v1 > 1) {
		fprintf(stderr, "uevent-bench: hdr rows with nobody listening skipped: %s\n",
			perf_uevent_supported() ? "no uevent enable word" :
			"no uevent support");
		for (row = 0; row < NR_ROWS; row++)
			if (hdr_none_row(row))
				skipped[row] = true;
	}

	printf("row,size,threads,round,ns_per_call\n");
	for (r = 0; r < rounds; r++)
		for (t = 0; t < nr_threads; t++)
			for (row = 0; row < NR_ROWS; row++)
				for (s = 0; s < nr_sizes; s++) {
					long batch = calls;
					size_t size = sizes[s];

					if (!want[row] || skipped[row])
						continue;
					if (sizeless(row) && s > 0)
						continue;
					/* A fork costs a thousand calls or so. */
					if (row >= ROW_FORK && row <= ROW_FORK_UEVENT)
						batch = calls / 100 + 1;
					/* A batch must fit every ring. */
					if (batch * (long)(size + 128) >
					    RING_PAGES * page_size * 9 / 10)
						batch = RING_PAGES * page_size *
							9 / 10 / (long)(size + 128);
					ret = measure(row, size, threads[t],
						      batch, r);
					if (ret == 1) {
						fprintf(stderr,
							"uevent-bench: %s: skipped, not available here\n",
							row_names[row]);
						skipped[row] = true;
					} else if (ret == 2 && !r && t == 0) {
						fprintf(stderr,
							"uevent-bench: %s/%zu: skipped, larger than the ring's largest event\n",
							row_names[row], size);
					} else if (ret < 0) {
						broken++;
					}
				}
	if (broken)
		fprintf(stderr, "uevent-bench: %d measurements broken\n", broken);
	return broken ? 1 : 0;
}
