// SPDX-License-Identifier: GPL-2.0
/*
 * uevent-app: what an application instrumented with <perf/uevent.h> looks
 * like. It "renders" a few frames, each a range around two phases of CPU
 * work, "layout" and "draw", the draw of frame n taking n times as long as
 * a layout; it prints a marker per frame and reports a counter, so that
 *
 *	perf record --uevent -e cpu-clock -- uevent-app
 *	perf script --show-uevent-events
 *
 * shows the markers, the range durations and the counter in time order
 * between the cpu-clock samples of the work, and
 *
 *	perf report --sort range_path
 *
 * how much of the CPU time each phase took. The ranges nest with
 * perf_uevent_push() and perf_uevent_pop(), which choose their ids, and
 * the text of the markers is only formatted when someone records.
 *
 * Usage: uevent-app [FRAMES]   (default 3)
 * Exit status: 0, or 1 when an emit fails (perror says why).
 */
#include <perf/uevent.h>
#include <stdio.h>
#include <stdlib.h>

/* A few milliseconds of work per unit, that the compiler cannot drop. */
static unsigned long render(unsigned long seed, int units)
{
	volatile unsigned long acc = seed;
	unsigned long i;

	for (i = 0; i < 1000000UL * units; i++)
		acc = acc * 6364136223846793005UL + 1442695040888963407UL;
	return acc;
}

int main(int argc, char **argv)
{
	int frames = argc > 1 ? atoi(argv[1]) : 3;
	unsigned long sum = 0;
	int n;

	if (perf_uevent_printf("uevent-app: rendering %d frames", frames))
		goto fail;
	for (n = 1; n <= frames; n++) {
		if (perf_uevent_push("frame") || perf_uevent_push("layout"))
			goto fail;
		sum += render(n, 1);
		if (perf_uevent_pop() || perf_uevent_push("draw"))
			goto fail;
		sum += render(n, 2 * n);
		if (perf_uevent_pop() ||		/* draw */
		    perf_uevent_pop() ||		/* frame */
		    perf_uevent_printf("frame %d done", n) ||
		    perf_uevent_counter(n, "frames_rendered"))
			goto fail;
	}
	printf("uevent-app: %d frames rendered (%lx)\n", frames, sum & 0xff);
	return 0;
fail:
	perror("uevent-app: emitting a uevent");
	return 1;
}
