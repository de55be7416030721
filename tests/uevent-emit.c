// SPDX-License-Identifier: GPL-2.0
/*
 * Emit uevents for tests/trace-cmd-uevent.sh:
 *
 *	uevent-emit TYPE PAYLOAD [TYPE PAYLOAD]...
 *
 * PAYLOAD is a string (without its NUL) or @N for N bytes 01 08 0f ...
 * (byte i is i * 7 + 1). Exit 0 when every prctl(PR_TASK_PERF_UEVENT)
 * returned 0, 4 when the kernel does not know it (EINVAL for a valid
 * call), 1 otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <linux/perf_event.h>

int main(int argc, char **argv)
{
	static unsigned char buf[PERF_UEVENT_MAX_SIZE];
	unsigned long type, n;
	const void *p;
	int i;

	for (i = 1; i + 1 < argc; i += 2) {
		type = strtoul(argv[i], NULL, 0);
		if (argv[i + 1][0] == '@') {
			n = strtoul(argv[i + 1] + 1, NULL, 0);
			for (unsigned long j = 0; j < n && j < sizeof(buf); j++)
				buf[j] = j * 7 + 1;
			p = buf;
		} else {
			n = strlen(argv[i + 1]);
			p = argv[i + 1];
		}
		if (prctl(PR_TASK_PERF_UEVENT, type, n, (unsigned long)p, 0UL)) {
			fprintf(stderr, "uevent-emit: type %lu, %lu bytes: %s\n",
				type, n, strerror(errno));
			return errno == EINVAL && n <= sizeof(buf) &&
			       type < PERF_UEVENT_TYPE_KERNEL ? 4 : 1;
		}
	}
	return 0;
}
