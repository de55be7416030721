// SPDX-License-Identifier: GPL-2.0
/*
 * Linked into a statically built selftest: when UEVENT_INJECT is set, mark
 * each test's own process for fault injection (failslab and fail_usercopy
 * with their task-filter on), and nothing else. The harness runs a test in
 * a grandchild: the child it forks maps the test's shared state and forks
 * again for setup, body and teardown. Marking the harness itself or that
 * child would fail their mmap() calls, which the harness does not check, so
 * the whole run would die before any test did anything; marking from the
 * second level of fork() on leaves them alone, and what the test forks in
 * turn inherits the mark.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static int fork_depth;

static void mark_for_failures(void)
{
	int fd;

	if (++fork_depth != 2)
		return;
	fd = open("/proc/self/make-it-fail", O_WRONLY);
	if (fd < 0)
		_exit(125);
	if (write(fd, "1", 1) != 1)
		_exit(125);
	close(fd);
}

__attribute__((constructor)) static void inject_in_tests(void)
{
	if (getenv("UEVENT_INJECT") && pthread_atfork(NULL, NULL, mark_for_failures))
		_exit(125);
}
