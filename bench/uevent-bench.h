/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UEVENT_BENCH_H
#define UEVENT_BENCH_H

#include <stdint.h>

/* uevent-bench-off.c: the calls of the hdr rows, compiled out */
int bench_off_string(const char *text);
int bench_off_range(void);
int bench_off_counter(int64_t value);

#endif /* UEVENT_BENCH_H */
