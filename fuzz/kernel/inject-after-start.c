// SPDX-License-Identifier: GPL-2.0
/*
 * Linked into a statically built selftest: when UEVENT_INJECT is set, mark
 * the process for fault injection (failslab, fail_usercopy with their
 * task-filter on) once it has started, so that exec and loading are left
 * alone and only what the test does, and its forked children, fail.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void inject_after_start(void)
{
	int fd;

	if (!getenv("UEVENT_INJECT"))
		return;
	fd = open("/proc/self/make-it-fail", O_WRONLY);
	if (fd < 0)
		return;
	if (write(fd, "1", 1) != 1)
		_exit(125);
	close(fd);
}
