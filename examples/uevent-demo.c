// SPDX-License-Identifier: GPL-2.0
/*
 * uevent-demo: emit a few PERF_RECORD_UEVENTs with prctl() while watching
 * itself through perf_event_open(), then print the records it reads back
 * from its own ring buffer.  It is the lab's smallest end-to-end check of
 * the kernel side: no perf tool involved.
 *
 * Exit status: 0 when every record came back intact, 1 when one did not,
 * 4 when the kernel lacks the feature (the kselftest SKIP code).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Built against the patched tree's uapi headers (make headers_install). */

#define DATA_PAGES	16

/* data[] starts with the u32 type, then the payload */
struct uevent_head {
	struct perf_event_header header;
	uint32_t version;
	uint32_t size;
	uint32_t type;
};

/* sample_id with TID | TIME */
struct id_tail {
	uint32_t pid, tid;
	uint64_t time;
};

static const char *const messages[] = {
	"hello from user space",
	"frame 1 rendered",
	"frame 2 rendered",
	"bye",
};

int main(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.sample_id_all = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *meta;
	unsigned int i, seen = 0, bad = 0;
	uint64_t head, tail;
	char *ring;
	int fd;

	attr.uevent = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		fprintf(stderr, "uevent-demo: perf_event_open: %s%s\n", strerror(errno),
			errno == EINVAL ? " (kernel without PERF_RECORD_UEVENT?)" : "");
		return errno == EINVAL ? 4 : 1;
	}
	meta = mmap(NULL, (DATA_PAGES + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (meta == MAP_FAILED) {
		perror("uevent-demo: mmap");
		return 1;
	}
	ring = (char *)meta + page;

	printf("pid %d emits %zu uevents with prctl(PR_TASK_PERF_UEVENT, ...)\n",
	       getpid(), sizeof(messages) / sizeof(messages[0]));
	for (i = 0; i < sizeof(messages) / sizeof(messages[0]); i++) {
		if (prctl(PR_TASK_PERF_UEVENT, 0x80000000 + i, strlen(messages[i]),
			  (unsigned long)messages[i], 0)) {
			perror("uevent-demo: prctl(PR_TASK_PERF_UEVENT)");
			return errno == EINVAL ? 4 : 1;
		}
	}

	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	for (tail = meta->data_tail; tail < head;) {
		char rec[512];
		struct perf_event_header *h = (void *)(ring + tail % (DATA_PAGES * page));
		size_t off = tail % (DATA_PAGES * page), n = h->size, first;
		struct uevent_head *u = (void *)rec;
		struct id_tail *id;
		size_t len;

		if (n > sizeof(rec) || n < sizeof(*h)) {
			fprintf(stderr, "uevent-demo: record of %zu bytes\n", n);
			return 1;
		}
		first = DATA_PAGES * page - off < n ? DATA_PAGES * page - off : n;
		memcpy(rec, ring + off, first);
		memcpy(rec + first, ring, n - first);
		tail += n;
		if (u->header.type != PERF_RECORD_UEVENT)
			continue;
		id = (void *)(rec + n - sizeof(*id));
		len = u->size - sizeof(u->type);
		printf("  time %" PRIu64 " pid %u tid %u: PERF_RECORD_UEVENT v%u type %#x size %zu \"%.*s\"\n",
		       id->time, id->pid, id->tid, u->version, u->type, len,
		       (int)len, rec + sizeof(*u));
		if (seen >= sizeof(messages) / sizeof(messages[0]) || u->version != 1 ||
		    u->size < sizeof(u->type) || u->type != 0x80000000 + seen ||
		    len != strlen(messages[seen]) ||
		    memcmp(rec + sizeof(*u), messages[seen], len) ||
		    id->pid != (uint32_t)getpid())
			bad++;
		seen++;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);

	printf("read back %u of %zu records, %u wrong\n", seen,
	       sizeof(messages) / sizeof(messages[0]), bad);
	return seen == sizeof(messages) / sizeof(messages[0]) && !bad ? 0 : 1;
}
