// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for perf's uevent decoding, tools/perf/util/uevent.c,
 * built with it under ASan and UBSan (see scripts/check-fuzz.sh).
 *
 * The input is read like a perf.data data section: PERF_RECORD_UEVENT
 * records one after the other, each starting with its perf_event_header.
 * The reader's guarantees are kept (header.size 8-aligned, at least the
 * fixed part, within the input) and nothing else: version, size, type
 * and payload are whatever the fuzzer makes them, also those that perf's
 * session would reject, since the decoders are meant to stay within
 * header.size on their own. Each record gets its own heap copy of exactly
 * header.size bytes so that ASan sees any read past it.
 *
 * Per record: type name, payload size, fields, decode (with its text
 * checked to lie within the record), the text sanitiser on the decoded
 * text and on the whole payload (its output checked: valid UTF-8, no C0,
 * DEL or C1 control, at most 4 bytes per input byte), fprintf, the JIT
 * code load perf makes a map of (range checked, name as sanitised), the
 * swap of the payload, the copy check and the range pairing, keyed by a
 * pid and time taken from the record's tail where a sample_id would be
 * (the time's low bits also pick an event, a CPU, ranges left out, a
 * thread exit, a fork and a flush of the pid, as at exec); the ranges
 * left open are flushed at the end of the input.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/compiler.h>
#include <linux/types.h>
#include <perf/event.h>
#include "string2.h"
#include "uevent.h"

static FILE *sink;

/* What strbuf.c's pr_debug() needs of perf's util/debug.c */
int verbose;

int eprintf(int level __maybe_unused, int var __maybe_unused,
	    const char *fmt __maybe_unused, ...)
{
	return 0;
}

/* A broken invariant of the decoders: say which, for the fuzzer's log */
static void fail(const char *why)
{
	fprintf(stderr, "fuzz-uevent: %s\n", why);
	abort();
}

/* What uevent__sanitize_text() made of @in_len bytes: safe to print */
static void check_sanitized(const char *s, size_t in_len)
{
	size_t len = strlen(s), i, n;

	if (len > 4 * in_len)
		fail("sanitised text more than 4 bytes per input byte");
	for (i = 0; i < len; i += n) {
		const unsigned char *u = (const unsigned char *)s + i;

		n = utf8_seq_len(s + i, len - i);
		if (!n)
			fail("sanitised text is not valid UTF-8");
		if ((n == 1 && (u[0] < ' ' || u[0] == 0x7f)) ||
		    (n == 2 && u[0] == 0xc2 && u[1] <= 0x9f))
			fail("sanitised text holds a control character");
	}
}

static void sanitize(const char *text, size_t len)
{
	char *s = uevent__sanitize_text(text, len);

	if (s) {
		check_sanitized(s, len);
		free(s);
	}
}

static int flush_cb(const struct uevent_range *range, void *data)
{
	(void)data;
	if (range->name_len > UEVENT_RANGE_NAME_MAX)
		fail("range name longer than UEVENT_RANGE_NAME_MAX");
	uevent_range__fprintf_begin(range, sink);
	return 0;
}

/* The uevent code compares machines by address, never dereferences them */
static char machine_token;
#define FUZZ_MACHINE	((struct machine *)&machine_token)

static void one_record(struct uevent_ranges *ranges,
		       struct uevent_copies *copies,
		       const struct perf_record_uevent *ue)
{
	const char *start = (const char *)ue;
	const char *end = start + ue->header.size;
	struct perf_record_uevent *copy;
	struct uevent_decoded dec;
	struct uevent_range other;
	u64 fields[UEVENT_MAX_FIELDS];
	u32 size = uevent__payload_size(ue);
	u64 addr, jit_size;
	pid_t pid = 0, tid;
	const char *path;
	u64 time = 0;
	char *name;
	int ret;

	if ((const char *)ue->data + size > end)
		fail("uevent__payload_size() goes past header.size");

	fputs(uevent__type_name(ue->type), sink);
	uevent__fields(ue, fields, 1);
	uevent__fields(ue, fields, UEVENT_MAX_FIELDS);

	if (uevent__decode(ue, &dec)) {
		if (dec.nr_fields > UEVENT_MAX_FIELDS ||
		    dec.text < ue->data || dec.text + dec.text_len > end)
			fail("uevent__decode() text outside the record");
		fwrite(dec.text, 1, dec.text_len, sink);
		sanitize(dec.text, dec.text_len);
	}
	sanitize((const char *)ue->data, size);

	uevent__fprintf(ue, sink);

	/* What perf makes a map and a symbol of */
	ret = uevent__jit_code_load(ue, &addr, &jit_size, &name);
	if (ret > 0) {
		if (!jit_size || addr + jit_size < addr)
			fail("uevent__jit_code_load() let an empty or wrapping range through");
		check_sanitized(name, size);
		fputs(name, sink);
		free(name);
	}

	/* The swap works in place: on a copy of the record */
	copy = malloc(ue->header.size);
	if (copy) {
		memcpy(copy, ue, ue->header.size);
		uevent__swap_payload(copy);
		uevent__fprintf(copy, sink);
		free(copy);
	}

	/* Where a TID|TIME sample_id would be */
	if (ue->header.size >= sizeof(*ue) + 16) {
		memcpy(&pid, end - 16, sizeof(pid));
		memcpy(&time, end - 8, sizeof(time));
	}
	/* The low bits of the time pick an event, a CPU and a thread exit */
	ret = uevent_copies__check(copies, FUZZ_MACHINE, time & 3, ue, pid,
				   (time >> 2) & 1);
	if (ret < 0)
		return;
	/* Bit 8 of the time picks another thread of the process */
	tid = pid ^ ((time >> 8) & 1);
	ret = uevent_ranges__process(ranges, FUZZ_MACHINE, ue, pid, tid, time,
				     time & 1, &other);
	if (ret == UEVENT_RANGE__END || ret == UEVENT_RANGE__REBEGIN)
		uevent_range__fprintf_begin(&other, sink);
	/* What perf report --sort range_path shows for a sample */
	path = uevent_ranges__path(ranges, FUZZ_MACHINE, pid, tid);
	if (path) {
		/* Every open range is at most UEVENT_RANGE_NAME_MAX bytes */
		check_sanitized(path, strlen(path) + 1);
		if (!*path || path[0] == ';' || path[strlen(path) - 1] == ';')
			fail("empty element in a range path");
	}
	/* As at the exit of a thread */
	if ((time & 0xf0) == 0xe0)
		uevent_ranges__exit_thread(ranges, FUZZ_MACHINE, pid, tid);
	/* As at the fork of a thread that gets tid, maybe a new process */
	if ((time & 0xf0) == 0xd0) {
		struct perf_record_fork fork_ev = {
			.header.type = PERF_RECORD_FORK,
			.pid = (time >> 9) & 1 ? pid : tid,
			.tid = tid,
		};

		uevent_ranges__fork(ranges, FUZZ_MACHINE, &fork_ev, flush_cb,
				    NULL);
		if (tid > 0 && uevent_ranges__open(ranges, FUZZ_MACHINE, tid))
			fail("ranges of a pid given to a new thread still open");
	}
	/* As at exec or at the exit of the last thread */
	if ((time & 0xf0) == 0xf0) {
		uevent_ranges__flush(ranges, FUZZ_MACHINE, pid, flush_cb, NULL);
		if (uevent_ranges__open(ranges, FUZZ_MACHINE, pid))
			fail("ranges of a flushed pid still open");
		uevent_copies__exit_thread(copies, FUZZ_MACHINE, pid);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct uevent_copies copies;
	struct uevent_ranges ranges;
	size_t off = 0;

	if (!sink) {
		sink = fopen("/dev/null", "w");
		if (!sink)
			fail("cannot open /dev/null");
	}

	uevent_ranges__init(&ranges);
	/* The first byte picks thread or process attribution */
	ranges.by_process = len && (data[0] & 1);
	uevent_copies__init(&copies);
	while (len - off >= sizeof(struct perf_event_header)) {
		struct perf_event_header hdr;
		struct perf_record_uevent *ue;

		memcpy(&hdr, data + off, sizeof(hdr));
		/* What perf's reader lets through to the decoders */
		if (hdr.size < sizeof(*ue) || hdr.size % 8 ||
		    hdr.size > len - off)
			break;

		ue = malloc(hdr.size);
		if (!ue)
			break;
		memcpy(ue, data + off, hdr.size);
		one_record(&ranges, &copies, ue);
		free(ue);
		off += hdr.size;
	}
	uevent_ranges__flush(&ranges, NULL, 0, flush_cb, NULL);
	if (uevent_ranges__open(&ranges, NULL, 0))
		fail("ranges still open after the flush");
	if (hashmap__size(&ranges.owners))
		fail("range owners left after the flush");
	uevent_ranges__exit(&ranges);
	uevent_copies__exit(&copies);
	return 0;
}
