// SPDX-License-Identifier: GPL-2.0
/*
 * uevent-jit: a tiny x86-64 "JIT" that names the code it generates with
 * JIT_CODE_LOAD uevents, so that perf symbolizes it from the perf.data file
 * alone, without a /tmp/perf-PID.map or jitdump file:
 *
 *	perf record --uevent -e cpu-clock -c 1000000 -- uevent-jit
 *	perf report --sort sym
 *	perf script
 *
 * It writes three functions into a fresh page, makes the page executable
 * (W^X: mmap RW, mprotect RX), announces them, then calls them for about
 * MS milliseconds of CPU time with iteration counts in the ratio 5:3:2, so
 * jit_loop_a, jit_loop_b and jit_loop_c get about 50%, 30% and 20% of the
 * samples of that phase. It then overwrites jit_loop_c with jit_loop_d,
 * same address and size, announces it and calls jit_loop_a and jit_loop_d
 * 1:1 for MS / 2 milliseconds. Samples at that address before the
 * replacement are jit_loop_c, after it jit_loop_d. Over the whole run:
 * a 50%, b 20%, c 13.3%, d 16.7% of the samples in JIT code.
 *
 * Usage: uevent-jit [MS]   (default 1000)
 * Exit status: 0, also on a kernel without uevents (a warning says so);
 * 1 when mmap, mprotect or an emit fails (perror says why); 2 on other
 * architectures than x86-64.
 */
#include <perf/uevent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define FN_SIZE		16	/* each function, padded with int3 */
#define FN_SPACING	64	/* between function starts */

/*
 * uint64_t fn(uint64_t n): loop n times over a 3-byte ALU op on rax.
 *
 *	0:  31 c0		xor    %eax,%eax
 *	2:  48 85 ff		test   %rdi,%rdi
 *	5:  74 08		je     f <done>
 *	7:  48 OP f8		OP     %rdi,%rax
 *	a:  48 ff cf		dec    %rdi
 *	d:  75 f8		jne    7
 *	f:  c3			ret
 */
#define FN_OP_OFFSET	8

struct jit_fn {
	const char	*name;
	uint8_t		op;	/* add, xor, sub, or */
	unsigned int	slot;	/* FN_SPACING units from the page start */
};

static const uint8_t fn_template[FN_SIZE] = {
	0x31, 0xc0, 0x48, 0x85, 0xff, 0x74, 0x08, 0x48,
	0x00, 0xf8, 0x48, 0xff, 0xcf, 0x75, 0xf8, 0xc3,
};

static const struct jit_fn fn_a = { "jit_loop_a", 0x01, 0 };
static const struct jit_fn fn_b = { "jit_loop_b", 0x31, 1 };
static const struct jit_fn fn_c = { "jit_loop_c", 0x29, 2 };
static const struct jit_fn fn_d = { "jit_loop_d", 0x09, 2 };	/* replaces c */

typedef uint64_t (*jit_fn_t)(uint64_t n);

static uint8_t *page;
static size_t page_size;

static uint8_t *fn_addr(const struct jit_fn *fn)
{
	return page + fn->slot * FN_SPACING;
}

static void fn_write(const struct jit_fn *fn)
{
	memcpy(fn_addr(fn), fn_template, FN_SIZE);
	fn_addr(fn)[FN_OP_OFFSET] = fn->op;
	__builtin___clear_cache((char *)fn_addr(fn), (char *)fn_addr(fn) + FN_SIZE);
}

/* Make the page writable, or executable again */
static int page_protect(int prot)
{
	if (mprotect(page, page_size, prot)) {
		perror("uevent-jit: mprotect");
		return -1;
	}
	return 0;
}

/*
 * Tell perf about the code at fn's address, before running it. A kernel
 * without uevents is no reason to stop a JIT: the helper returns 0 there,
 * and main() says so once.
 */
static int fn_announce(const struct jit_fn *fn)
{
	if (!perf_uevent_jit_code_load((uintptr_t)fn_addr(fn), FN_SIZE, fn->name))
		return 0;
	perror("uevent-jit: perf_uevent_jit_code_load");
	return -1;
}

static jit_fn_t fn_ptr(const struct jit_fn *fn)
{
	return (jit_fn_t)(uintptr_t)fn_addr(fn);
}

static long cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Call the functions with iteration counts in the ratio of weights */
static uint64_t run(const struct jit_fn **fns, const unsigned int *weights,
		    unsigned int nr, long ms)
{
	const uint64_t unit = 20000;
	long end = cpu_ms() + ms;
	uint64_t sum = 0;
	unsigned int i;

	while (cpu_ms() < end) {
		for (i = 0; i < nr; i++)
			sum += fn_ptr(fns[i])(weights[i] * unit);
	}
	return sum;
}

int main(int argc, char **argv)
{
	const struct jit_fn *phase1[] = { &fn_a, &fn_b, &fn_c };
	const struct jit_fn *phase2[] = { &fn_a, &fn_d };
	const unsigned int weights1[] = { 5, 3, 2 }, weights2[] = { 5, 5 };
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	uint64_t sum;

#ifndef __x86_64__
	fprintf(stderr, "uevent-jit: generates x86-64 code only\n");
	return 2;
#endif
	page_size = 4096;
	page = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		perror("uevent-jit: mmap");
		return 1;
	}
	memset(page, 0xcc, page_size);	/* int3 between functions */
	if (!perf_uevent_supported())
		fprintf(stderr, "uevent-jit: no uevent support in this kernel\n");

	fn_write(&fn_a);
	fn_write(&fn_b);
	fn_write(&fn_c);
	if (page_protect(PROT_READ | PROT_EXEC) ||
	    fn_announce(&fn_a) || fn_announce(&fn_b) || fn_announce(&fn_c))
		return 1;
	sum = run(phase1, weights1, 3, ms);

	/* Replace jit_loop_c by jit_loop_d at the same address */
	if (page_protect(PROT_READ | PROT_WRITE))
		return 1;
	fn_write(&fn_d);
	if (page_protect(PROT_READ | PROT_EXEC) || fn_announce(&fn_d))
		return 1;
	sum += run(phase2, weights2, 2, ms / 2);

	printf("uevent-jit: code at %p, %s/%s/%s then %s/%s (%llx)\n",
	       (void *)page, fn_a.name, fn_b.name, fn_c.name, fn_a.name,
	       fn_d.name, (unsigned long long)(sum & 0xff));
	return 0;
}
