// SPDX-License-Identifier: GPL-2.0
/*
 * libperf's test of <perf/uevent.h> (tools/lib/perf/tests/test-uevent.c)
 * alone, for the guests: libperf's own test runner also runs the evlist
 * and evsel tests, which need a hardware PMU the TCG guest lacks. Exit 0
 * when the test passed on a kernel with uevents, 4 when it passed on one
 * without them (the header fell back: the skip the base kernel must
 * give), 1 when it failed.
 */
#include <internal/tests.h>
#include <perf/uevent.h>
#include "tests.h"

int tests_failed;
int tests_verbose;

int main(int argc, char **argv)
{
	if (test_uevent(argc, argv) || tests_failed)
		return 1;
	return perf_uevent_supported() ? 0 : 4;
}
