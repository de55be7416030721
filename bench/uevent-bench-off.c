// SPDX-License-Identifier: GPL-2.0
/*
 * The hdr-off rows of uevent-bench: the calls of its hdr-string, hdr-range
 * and hdr-counter rows with <perf/uevent.h> compiled out. PERF_UEVENT_DISABLE
 * applies to a whole translation unit, hence this file: each function
 * compiles to "return 0", and the rows measure the call into it.
 */
#define PERF_UEVENT_DISABLE
#include <stdint.h>
#include <perf/uevent.h>

#include "uevent-bench.h"

int bench_off_string(const char *text)
{
	return perf_uevent_string(text);
}

int bench_off_range(void)
{
	return perf_uevent_push("bench") || perf_uevent_pop() ? -1 : 0;
}

int bench_off_counter(int64_t value)
{
	return perf_uevent_counter(value, "bench");
}
