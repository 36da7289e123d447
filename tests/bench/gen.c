/* SPDX-License-Identifier: MIT */
/* Deterministic benchmark profile: an advanced-form .perfView.xml with N samples over about
 * 50,000 distinct stacks (depth up to 40) of realistic module!function names; or `perf
 * script` text of N samples whose stacks are MIN to MAX frames deep (the text importer's
 * deep-stack benchmark: real C++/Java/kernel stacks are 30-100 frames).
 * usage: gen SAMPLES STACKS > out.perfView.xml
 *        gen SAMPLES STACKS perf-script MIN MAX > out.perf.txt
 *        gen OBJECTS TYPES gcdump > out.gcdump
 * The heap snapshot (issue 33's benchmark): a .gcdump of OBJECTS objects of TYPES types, three
 * references an object on average (a binary tree of containers, and two anywhere: cycles and
 * shared objects), as PerfView's GCHeapDump in a FastSerialization stream. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const char *const modules[] = {
	"/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
	"/usr/lib/x86_64-linux-gnu/libssl.so.3", "/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
	"/usr/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
	"/opt/app/bin/server", "/opt/app/lib/libengine.so", "/opt/app/lib/libstorage.so", "/opt/app/lib/libnet.so",
	"[kernel.kallsyms]", "C:\\Windows\\System32\\ntdll.dll", "C:\\Windows\\System32\\kernelbase.dll",
	"C:\\Program Files\\App\\App.Core.dll", "C:\\Program Files\\App\\App.Web.dll",
	"C:\\Windows\\Microsoft.NET\\Framework64\\v4.0.30319\\clr.dll",
};
static const char *const ns[] = { "Storage", "Http", "Json", "Crypto", "Cache", "Query", "Index", "Log",
				  "Sched", "Alloc", "Render", "Codec" };
static const char *const verbs[] = { "Read", "Write", "Parse", "Encode", "Decode", "Lookup", "Insert", "Flush",
				     "Compress", "Hash", "Dispatch", "Wait", "Spin", "Copy", "Validate", "Merge" };

#define NFUNCS 12000
#define MAXDEPTH 40

/* perf script text: each stack a chain of functions (a hot path shared by many, then a random
 * tail), leaf first, with addresses, symbol offsets and the module, as `perf script` prints. */
static int perf_script(long nsamples, long nstacks, long lo, long hi)
{
	size_t nmod = sizeof(modules) / sizeof(modules[0]);
	long *len = malloc(sizeof(long) * (size_t)nstacks);
	long *seed = malloc(sizeof(long) * (size_t)nstacks);
	if (!len || !seed)
		return 1;
	for (long s = 0; s < nstacks; s++) {
		len[s] = lo + (long)(next() % (uint64_t)(hi - lo + 1));
		seed[s] = (long)(next() % NFUNCS);
	}
	double t = 12345.0;
	for (long i = 0; i < nsamples; i++) {
		uint64_t r = next();
		long s = (long)((r % (uint64_t)nstacks) * ((r >> 40) % 1024) / 1024);
		long p = s % 8, th = 20000 + s % 56;
		t += 0.00025;
		printf("server-%ld %ld/%ld [%03ld] %.6f:     250000 cpu-clock:u: \n", p, 1000 + p, th, s % 16, t);
		/* frames leaf first: the stack's own tail, then a path shared by its neighbours */
		for (long d = 0; d < len[s]; d++) {
			long f = d < len[s] / 3 ? (seed[s] + d * 31) % NFUNCS : (s / 64 * 7 + (len[s] - d) * 13) % NFUNCS;
			const char *m = modules[(f * 7 + f / 13) % nmod];
			printf("\t    %12llx %s.%s%s%ld+0x%lx (%s)\n", 0x7f0000000000ULL + (unsigned long long)f * 4096 + (unsigned long long)d,
			       ns[f % 12], verbs[(f / 12) % 16], (f % 5) ? "Async" : "", f, (long)(d * 4 + 3), m);
		}
		printf("\n");
	}
	free(len);
	free(seed);
	return 0;
}

/* ---- .gcdump (FastSerialization, the layout tests/gcdump/gen_gcdump.py documents) ---- */

static void w32(int32_t v)
{
	fwrite(&v, 4, 1, stdout);
}

static void wstr(const char *v)
{
	w32((int32_t)strlen(v));
	fputs(v, stdout);
}

static void wtype(const char *name, int32_t version, int32_t minr)
{
	putchar(4);
	putchar(1);
	w32(version);
	w32(minr);
	wstr(name);
	putchar(6);
}

static size_t wcint(unsigned char *o, int32_t v)
{
	int n = 5; /* the fewest 7-bit groups that hold v sign-extended */
	for (int k = 1; k < 5; k++)
		if (v >= -(1 << (7 * k - 1)) && v < (1 << (7 * k - 1))) {
			n = k;
			break;
		}
	for (int k = n - 1; k > 0; k--)
		*o++ = (unsigned char)((((uint32_t)v >> (7 * k)) & 0x7f) | 0x80);
	*o = (unsigned char)(v & 0x7f);
	return (size_t)n;
}

static int gcdump(long nobj, long ntypes)
{
	static const char *const roots[] = { "[.NET Roots]", "[static vars]", "[local vars]", "[strong handles]",
					     "[pinned handles]", "[finalization handles]" };
	long nroot = 6, base = nroot; /* node 0 the root, 1..5 its categories, objects after */
	long n = base + nobj;
	int32_t *type = malloc(sizeof(*type) * (size_t)n);
	int32_t *label = malloc(sizeof(*label) * (size_t)n);
	unsigned char *blob = malloc((size_t)n * 24 + 64);
	int32_t *tsize = malloc(sizeof(*tsize) * (size_t)(ntypes + nroot));
	if (!type || !label || !blob || !tsize)
		return 1;
	for (long t = 0; t < nroot; t++)
		tsize[t] = 0;
	for (long t = nroot; t < ntypes + nroot; t++)
		tsize[t] = 24 + 8 * (int32_t)(next() % 12);
	/* an object's type follows from its container's type and its slot, so paths repeat as
	 * they do in real heaps (every List's strings under the same path) */
	for (long i = 0; i < nroot; i++)
		type[i] = (int32_t)i;
	for (long i = base; i < n; i++) {
		long o = i - base, up = o ? (o - 1) / 2 : -1;
		uint32_t pt = up < 0 ? 7 : (uint32_t)type[base + up];
		uint32_t h = pt * 2654435761u + (uint32_t)(o & 1) * 40503u + (uint32_t)(o % 97 == 0) * 977u;
		type[i] = (int32_t)(nroot + (h >> 7) % (uint32_t)ntypes);
	}
	size_t at = 0;
	uint64_t refs = 0;
	int64_t total = 0;
	for (long i = 0; i < n; i++) {
		label[i] = (int32_t)at;
		int32_t kids[64];
		int nk = 0;
		if (i == 0) {
			for (long c = 1; c < nroot; c++)
				kids[nk++] = (int32_t)c;
		} else if (i < nroot) { /* each category holds a few of the tree's tops */
			for (long k = 0; k < 12; k++)
				kids[nk++] = (int32_t)(base + (long)(next() % (uint64_t)(nobj < 4096 ? nobj : 4096)));
		} else {
			long o = i - base;
			for (long c = 2 * o + 1; c <= 2 * o + 2; c++)
				if (c < nobj)
					kids[nk++] = (int32_t)(base + c);
			kids[nk++] = (int32_t)(base + (long)(next() % (uint64_t)nobj));
			kids[nk++] = (int32_t)(base + (long)(next() % (uint64_t)nobj));
		}
		bool own = i >= base && type[i] % 5 == 0; /* arrays and strings: a size of their own */
		at += wcint(blob + at, type[i] << 1 | own);
		int32_t sz = own ? 16 + (int32_t)(next() % 4000) : tsize[type[i]];
		if (own)
			at += wcint(blob + at, sz);
		total += sz;
		at += wcint(blob + at, nk);
		for (int k = 0; k < nk; k++)
			at += wcint(blob + at, kids[k] - (int32_t)i);
		refs += (uint64_t)nk;
	}
	w32(20);
	fputs("!FastSerialization.1", stdout);
	putchar(4);
	wtype("GCHeapDump", 10, 8);
	putchar(4);
	wtype("Graphs.MemoryGraph", 1, 0);
	fwrite(&total, 8, 1, stdout);
	w32(0);
	w32((int32_t)(ntypes + nroot));
	for (long t = 0; t < ntypes + nroot; t++) {
		char name[128];
		if (t < nroot) {
			wstr(roots[t]);
			w32(0);
			w32(-1);
			continue;
		}
		snprintf(name, sizeof(name), "App.%s.%s%sItem%ld", ns[t % 12], verbs[(t / 12) % 16], (t % 5) ? "" : "Array", t);
		wstr(name);
		w32(tsize[t]);
		wstr(t % 3 ? "App.Core" : "System.Private.CoreLib");
	}
	w32((int32_t)n);
	fwrite(label, 4, (size_t)n, stdout);
	w32((int32_t)at);
	fwrite(blob, 1, at, stdout);
	w32((int32_t)n);
	for (long i = 0; i < n; i++) {
		int64_t a = 0x7f0000000000LL + i * 48;
		fwrite(&a, 8, 1, stdout);
	}
	putchar(8); /* tagged Is64Bit */
	putchar(1);
	putchar(6);
	putchar(1);
	float one = 1;
	fwrite(&one, 4, 1, stdout);
	fwrite(&one, 4, 1, stdout);
	putchar(1); /* no JSHeapInfo, no DotNetHeapInfo */
	putchar(1);
	wstr("generated by tests/bench/gen");
	int64_t zero = 0;
	fwrite(&zero, 8, 1, stdout);
	wstr("bench");
	wstr("bench");
	w32(1);
	fwrite(&zero, 8, 1, stdout);
	fwrite(&zero, 8, 1, stdout);
	w32(0);
	putchar(1);
	putchar(6);
	fprintf(stderr, "gcdump: %ld objects, %ld types, %llu references, %zu bytes of node data\n", n, ntypes + nroot,
		(unsigned long long)refs, at);
	free(type);
	free(label);
	free(blob);
	free(tsize);
	return 0;
}

int main(int argc, char **argv)
{
	long nsamples = argc > 1 ? atol(argv[1]) : 2000000;
	long nstacks = argc > 2 ? atol(argv[2]) : 50000;
	if (argc > 5 && strcmp(argv[3], "perf-script") == 0)
		return perf_script(nsamples, nstacks, atol(argv[4]), atol(argv[5]));
	if (argc > 3 && strcmp(argv[3], "gcdump") == 0)
		return gcdump(nsamples, nstacks);
	size_t nmod = sizeof(modules) / sizeof(modules[0]);
	long nroots = 64;
	printf("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<StackWindow>\n <StackSource>\n");
	printf("  <Frames Count=\"%ld\">\n", NFUNCS + nroots + 4);
	printf("   <Frame ID=\"0\">ROOT</Frame>\n   <Frame ID=\"1\">BROKEN</Frame>\n"
	       "   <Frame ID=\"2\">?!?</Frame>\n   <Frame ID=\"3\">OVERHEAD</Frame>\n");
	/* Root frames: 8 processes x 8 threads as two levels. */
	for (long i = 0; i < nroots; i++) {
		if (i < 8)
			printf("   <Frame ID=\"%ld\">Process server-%ld (%ld)</Frame>\n", 4 + i, i, 1000 + i);
		else
			printf("   <Frame ID=\"%ld\">Thread (%ld)</Frame>\n", 4 + i, 20000 + i);
	}
	long f0 = 4 + nroots;
	for (long i = 0; i < NFUNCS; i++) {
		const char *m = modules[(i * 7 + i / 13) % nmod];
		printf("   <Frame ID=\"%ld\">%s!%s.%s%s%ld(int)</Frame>\n", f0 + i, m, ns[i % 12], verbs[(i / 12) % 16],
		       (i % 5) ? "Async" : "", i);
	}
	printf("  </Frames>\n  <Stacks Count=\"%ld\">\n", nstacks);
	int *depth = malloc(sizeof(int) * (size_t)nstacks);
	long *frame = malloc(sizeof(long) * (size_t)nstacks);
	long id = 0;
	/* process (8) x thread (7 each) = 64 root-side stacks */
	for (long p = 0; p < 8 && id < nstacks; p++) {
		printf("   <Stack ID=\"%ld\" CallerID=\"-1\" FrameID=\"%ld\" />\n", id, 4 + p);
		depth[id] = 1;
		frame[id] = 4 + p;
		long pid = id++;
		for (long t = 0; t < 7 && id < nstacks; t++) {
			printf("   <Stack ID=\"%ld\" CallerID=\"%ld\" FrameID=\"%ld\" />\n", id, pid, 4 + 8 + (p * 7 + t) % 56);
			depth[id] = 2;
			frame[id] = 0;
			id++;
		}
	}
	while (id < nstacks) {
		/* Prefer recent stacks as callers so paths get deep; bounded by MAXDEPTH. */
		long caller;
		do {
			uint64_t r = next();
			caller = (r & 3) ? id - 1 - (long)((r >> 8) % (uint64_t)(id < 64 ? id : 64)) : (long)((r >> 8) % (uint64_t)id);
		} while (depth[caller] >= MAXDEPTH || caller < 8);
		long f = f0 + (long)(next() % NFUNCS);
		/* Call sites cluster: callees of a frame come from a nearby range of functions. */
		if (frame[caller] >= f0)
			f = f0 + (frame[caller] - f0 + 1 + (long)(next() % 200)) % NFUNCS;
		printf("   <Stack ID=\"%ld\" CallerID=\"%ld\" FrameID=\"%ld\" />\n", id, caller, f);
		depth[id] = depth[caller] + 1;
		frame[id] = f;
		id++;
	}
	printf("  </Stacks>\n  <Samples Count=\"%ld\">\n", nsamples);
	for (long i = 0; i < nsamples; i++) {
		/* Skewed choice of stacks: a few hot paths, a long tail. */
		uint64_t r = next();
		long s = (long)((r % (uint64_t)nstacks) * ((r >> 40) % 1024) / 1024);
		if (s < 64)
			s = 64 + (long)(r % (uint64_t)(nstacks - 64));
		printf("   <Sample ID=\"%ld\" Time=\"%.3f\" StackID=\"%ld\" />\n", i, (double)i * 0.25, s);
	}
	printf("  </Samples>\n </StackSource>\n <StackWindowGuiState><ScalingPolicy>TimeMetric</ScalingPolicy>"
	       "</StackWindowGuiState>\n</StackWindow>\n");
	free(depth);
	free(frame);
	return 0;
}
