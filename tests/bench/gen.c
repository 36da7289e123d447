/* SPDX-License-Identifier: MIT */
/* Deterministic benchmark profile: an advanced-form .perfView.xml with N samples over about
 * 50,000 distinct stacks (depth up to 40) of realistic module!function names; or `perf
 * script` text of N samples whose stacks are MIN to MAX frames deep (the text importer's
 * deep-stack benchmark: real C++/Java/kernel stacks are 30-100 frames).
 * usage: gen SAMPLES STACKS > out.perfView.xml
 *        gen SAMPLES STACKS perf-script MIN MAX > out.perf.txt */
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

int main(int argc, char **argv)
{
	long nsamples = argc > 1 ? atol(argv[1]) : 2000000;
	long nstacks = argc > 2 ? atol(argv[2]) : 50000;
	if (argc > 5 && strcmp(argv[3], "perf-script") == 0)
		return perf_script(nsamples, nstacks, atol(argv[4]), atol(argv[5]));
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
