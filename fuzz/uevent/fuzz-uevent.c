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
 * session would reject, since the decoder is meant to stay within
 * header.size on its own. Each record gets its own heap copy of exactly
 * header.size bytes so that ASan sees any read past it.
 *
 * Per record: uevent__decode(), the one reader of payloads (payload, text
 * and ATrace name checked to lie within the record, fields within the
 * table, the ATrace phase one of those the protocol has), the text
 * sanitiser on the decoded text, the ATrace name and the whole payload
 * (its output checked: valid UTF-8, no C0, DEL or C1 control, at most 4
 * bytes per input byte), the hex helper (at most UEVENT_HEX_MAX bytes and
 * "...", within its buffer), uevent__fprintf(), and the swap of the record
 * as the other byte order writes it, on a copy, which must give it back.
 * The range engine is fed the decoded uevents by machine.c and is run by
 * perf itself over the hostile files (run-hostile.py).
 */
#include <byteswap.h>
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

/* A broken invariant of the decoder: say which, for the fuzzer's log */
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

/* @p, @len lie within the record from @start to @end */
static void check_within(const char *p, size_t len, const void *start,
			 const void *end, const char *what)
{
	if (p < (const char *)start || p + len > (const char *)end)
		fail(what);
}

static void one_record(const struct perf_record_uevent *ue)
{
	const char *end = (const char *)ue + ue->header.size;
	struct perf_record_uevent *copy;
	char hex[UEVENT_HEX_BUF + 16];
	struct uevent_decoded dec;
	size_t n;

	if (!uevent__decode(ue, &dec)) {
		uevent__fprintf(ue, sink);
		return;
	}
	check_within(dec.payload, dec.size, ue->data, end,
		     "uevent__decode() payload outside the record");
	fputs(dec.type_name, sink);

	if (dec.known) {
		if (dec.nr_fields > UEVENT_MAX_FIELDS ||
		    (dec.nr_fields && !dec.fields))
			fail("uevent__decode() fields past the table");
		check_within(dec.text, dec.text_len, dec.payload,
			     dec.payload + dec.size,
			     "uevent__decode() text outside the payload");
		fwrite(dec.text, 1, dec.text_len, sink);
		sanitize(dec.text, dec.text_len);
	}
	if (dec.atrace) {
		if (!strchr("BECSFI", dec.atrace) ||
		    dec.type != PERF_UEVENT_TYPE_TRACE_MARKER)
			fail("ATrace phase not in the protocol, or not a marker");
		if (dec.name) {
			check_within(dec.name, dec.name_len, dec.text,
				     dec.text + dec.text_len,
				     "ATrace name outside the text");
			sanitize(dec.name, dec.name_len);
		}
	}
	sanitize(dec.payload, dec.size);

	/* The one hex dump, at most UEVENT_HEX_MAX bytes of the payload */
	memset(hex, 'Z', sizeof(hex));
	n = uevent__scnprintf_hex(&dec, hex, UEVENT_HEX_BUF);
	if (n >= UEVENT_HEX_BUF || strlen(hex) != n ||
	    memchr(hex + UEVENT_HEX_BUF, 0, sizeof(hex) - UEVENT_HEX_BUF))
		fail("hex dump longer than UEVENT_HEX_BUF");
	if ((dec.size > UEVENT_HEX_MAX) != (n > 3 && !strcmp(hex + n - 4, " ...")))
		fail("hex dump cut where the payload is not longer");

	uevent__fprintf(ue, sink);

	/*
	 * The record as the other byte order writes it: uevent__swap() must
	 * give it back, in place, on a copy
	 */
	copy = malloc(ue->header.size);
	if (copy) {
		unsigned int i;
		u32 type = bswap_32(dec.type);
		u64 field;

		memcpy(copy, ue, ue->header.size);
		memcpy(copy->data, &type, sizeof(type));
		for (i = 0; dec.known && !dec.atrace && i < dec.nr_fields; i++) {
			field = bswap_64(dec.value[i]);
			memcpy(copy->data + sizeof(type) + i * sizeof(field),
			       &field, sizeof(field));
		}
		uevent__swap(copy);
		if (memcmp(copy, ue, ue->header.size))
			fail("uevent__swap() does not give the record back");
		free(copy);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	size_t off = 0;

	if (!sink) {
		sink = fopen("/dev/null", "w");
		if (!sink)
			fail("cannot open /dev/null");
	}

	while (len - off >= sizeof(struct perf_event_header)) {
		struct perf_event_header hdr;
		struct perf_record_uevent *ue;

		memcpy(&hdr, data + off, sizeof(hdr));
		/* What perf's reader lets through to the decoder */
		if (hdr.size < sizeof(*ue) || hdr.size % 8 ||
		    hdr.size > len - off)
			break;

		ue = malloc(hdr.size);
		if (!ue)
			break;
		memcpy(ue, data + off, hdr.size);
		one_record(ue);
		free(ue);
		off += hdr.size;
	}
	return 0;
}
