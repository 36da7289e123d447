/* SPDX-License-Identifier: MIT */
/* The thread-time computer (lib/thread_time.c): exact intervals from switches, wake-ups and
 * CPU samples; preemption, wait reasons, exits; what it drops when a switch is missing or
 * events come out of order; the READIED_BY frames of a waker. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv/thread_time.h"
#include "unit.h"

#define MS 1000000ull /* ns */

typedef struct world {
	sv_source *src;
	sv_sink sink;
	sv_tt *tt;
	sv_frame_id thread_frames[8];
	bool by_cpu;
} world;

/* Threads 1..7 are "Thread (N)" directly under the root; 0 is never asked for. */
static int root(void *payload, uint32_t tid, sv_stack_id *out)
{
	world *w = payload;
	char name[32];
	snprintf(name, sizeof(name), "Thread (%u)", tid);
	sv_frame_id f;
	int rc = sv_source_intern_frame(w->src, &f, name, strlen(name));
	return rc ? rc : sv_source_intern_stack(w->src, out, SV_STACK_NONE, f);
}

static int waker(void *payload, uint32_t tid, sv_frame_id *out)
{
	world *w = payload;
	char name[48];
	snprintf(name, sizeof(name), "READIED_BY Thread (%u)", tid);
	return sv_source_intern_frame(w->src, out, name, strlen(name));
}

static void open_world_cpu(world *w, sv_tt_view view, bool by_cpu)
{
	memset(w, 0, sizeof(*w));
	w->by_cpu = by_cpu;
	assert_int_equal(sv_source_new(&w->src, "test"), 0);
	w->sink = sv_source_sink(w->src);
	sv_tt_hooks hooks = { root, waker, w };
	assert_int_equal(sv_tt_new(&w->tt, &w->sink, &hooks, view, 0, w->by_cpu), 0);
}

static void open_world(world *w, sv_tt_view view)
{
	open_world_cpu(w, view, false);
}

static void close_world(world *w)
{
	sv_tt_free(w->tt);
	sv_source_free(w->src);
}

/* A stack below thread tid: "Thread (tid);a;b" from "a;b". */
static sv_stack_id stack(world *w, uint32_t tid, const char *frames)
{
	sv_stack_id st;
	assert_int_equal(root(w, tid, &st), 0);
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", frames);
	for (char *save = NULL, *f = strtok_r(buf, ";", &save); f; f = strtok_r(NULL, ";", &save)) {
		sv_frame_id id;
		assert_int_equal(sv_source_intern_frame(w->src, &id, f, strlen(f)), 0);
		assert_int_equal(sv_source_intern_stack(w->src, &st, st, id), 0);
	}
	return st;
}

/* Every sample as "time metric root;...;leaf", one per line, in the order emitted. */
static const char *dump(world *w)
{
	static char out[8192];
	size_t o = 0;
	const sv_stack_id *st = sv_source_sample_stacks(w->src);
	sv_samples smp = sv_source_samples(w->src);
	for (size_t i = 0; i < sv_source_sample_count(w->src); i++) {
		const char *names[64];
		size_t n = 0;
		for (sv_stack_id s = st[i]; s != SV_STACK_NONE && n < 64; s = sv_source_stack_caller(w->src, s))
			names[n++] = sv_source_frame_name(w->src, sv_source_stack_frame(w->src, s));
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%g %g ", sv_sample_time(&smp, i), sv_sample_metric(&smp, i));
		while (n-- > 0)
			o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%s", names[n], n ? ";" : "\n");
	}
	out[o] = '\0';
	return out;
}

static void test_intervals(void **state)
{
	(void)state;
	world w;
	open_world(&w, SV_TT_THREAD_TIME);
	sv_tt *tt = w.tt;
	/* 1 comes in at 10 ms, is sampled at 12, sleeps at 15 in "wait", is woken at 20 by 2,
	 * comes back at 23, is preempted at 30, comes back at 31 and exits at 33. */
	assert_int_equal(sv_tt_switch(tt, 10 * MS, SV_TT_NO_CPU, 0, SV_TT_OUT_WAIT, NULL, SV_STACK_NONE, 1, SV_STACK_NONE), 0);
	assert_int_equal(sv_tt_sample(tt, 12 * MS, SV_TT_NO_CPU, 1, stack(&w, 1, "main;work")), 0);
	assert_int_equal(sv_tt_switch(tt, 15 * MS, SV_TT_NO_CPU, 1, SV_TT_OUT_WAIT, "S (sleeping)", stack(&w, 1, "main;wait"), 0,
				      SV_STACK_NONE),
			 0);
	assert_int_equal(sv_tt_wakeup(tt, 20 * MS, 1, 2, stack(&w, 2, "post")), 0);
	assert_int_equal(sv_tt_wakeup(tt, 21 * MS, 1, 3, SV_STACK_NONE), 0); /* the first wake-up counts */
	assert_int_equal(sv_tt_switch(tt, 23 * MS, SV_TT_NO_CPU, 0, SV_TT_OUT_WAIT, NULL, SV_STACK_NONE, 1, SV_STACK_NONE), 0);
	assert_int_equal(sv_tt_switch(tt, 30 * MS, SV_TT_NO_CPU, 1, SV_TT_OUT_RUNNABLE, NULL, stack(&w, 1, "main;work"), 0, SV_STACK_NONE),
			 0);
	assert_int_equal(sv_tt_switch(tt, 31 * MS, SV_TT_NO_CPU, 0, SV_TT_OUT_WAIT, NULL, SV_STACK_NONE, 1, SV_STACK_NONE), 0);
	assert_int_equal(sv_tt_switch(tt, 33 * MS, SV_TT_NO_CPU, 1, SV_TT_OUT_DEAD, NULL, SV_STACK_NONE, 0, SV_STACK_NONE), 0);
	sv_tt_stats st;
	assert_int_equal(sv_tt_finish(tt, &st), 0);
	assert_string_equal(dump(&w), "10 2 Thread (1);CPU_TIME\n"
				      "12 3 Thread (1);main;work;CPU_TIME\n"
				      "15 5 Thread (1);main;wait;Wait S (sleeping);BLOCKED_TIME\n"
				      "20 3 Thread (1);main;wait;READIED_TIME\n"
				      "23 7 Thread (1);main;wait;CPU_TIME\n"
				      "30 1 Thread (1);main;work;Preempted;READIED_TIME\n"
				      "31 2 Thread (1);main;work;CPU_TIME\n");
	assert_true(st.cpu_ms == 14 && st.readied_ms == 4 && st.blocked_ms == 5);
	assert_int_equal(st.unpaired + st.disordered + st.open_at_end, 0);
	close_world(&w);
}

static void test_incomplete(void **state)
{
	(void)state;
	world w;
	open_world(&w, SV_TT_THREAD_TIME);
	sv_tt *tt = w.tt;
	/* 4 switches out twice without coming in: the time between is not guessed */
	assert_int_equal(sv_tt_switch(tt, 1 * MS, SV_TT_NO_CPU, 4, SV_TT_OUT_WAIT, "D (disk)", SV_STACK_NONE, 0, SV_STACK_NONE), 0);
	assert_int_equal(sv_tt_switch(tt, 5 * MS, SV_TT_NO_CPU, 4, SV_TT_OUT_WAIT, "D (disk)", SV_STACK_NONE, 0, SV_STACK_NONE), 0);
	/* 5 comes in twice: the first stint's end is unknown */
	assert_int_equal(sv_tt_switch(tt, 2 * MS, SV_TT_NO_CPU, 0, SV_TT_OUT_WAIT, NULL, SV_STACK_NONE, 5, SV_STACK_NONE), 0);
	assert_int_equal(sv_tt_switch(tt, 6 * MS, SV_TT_NO_CPU, 0, SV_TT_OUT_WAIT, NULL, SV_STACK_NONE, 5, SV_STACK_NONE), 0);
	/* 6 is sampled while switched out: its switch-in was lost */
	assert_int_equal(sv_tt_switch(tt, 3 * MS, SV_TT_NO_CPU, 6, SV_TT_OUT_WAIT, "S (sleeping)", SV_STACK_NONE, 0, SV_STACK_NONE), 0);
	assert_int_equal(sv_tt_sample(tt, 4 * MS, SV_TT_NO_CPU, 6, stack(&w, 6, "spin")), 0);
	/* 7 goes back in time: dropped */
	assert_int_equal(sv_tt_switch(tt, 9 * MS, SV_TT_NO_CPU, 0, SV_TT_OUT_WAIT, NULL, SV_STACK_NONE, 7, SV_STACK_NONE), 0);
	assert_int_equal(sv_tt_switch(tt, 8 * MS, SV_TT_NO_CPU, 7, SV_TT_OUT_WAIT, "S (sleeping)", SV_STACK_NONE, 0, SV_STACK_NONE), 0);
	sv_tt_stats st;
	assert_int_equal(sv_tt_finish(tt, &st), 0);
	assert_int_equal(st.unpaired, 3);
	assert_int_equal(st.disordered, 1);
	assert_int_equal(st.open_at_end, 4); /* 4 out, 5 and 6 running, 7 out */
	assert_string_equal(dump(&w), "");
	close_world(&w);
}

/* A switch-in the kernel left untraced (switches out of the idle task): 8 sleeps on CPU 0
 * at 1 ms (CPU 0 goes idle), is woken at 2 ms, and is next seen in a CPU sample at 4 ms,
 * then switches out at 5 ms. Its wait counts until the wake-up (1 ms BLOCKED), its run from
 * the sample (1 ms CPU); the 2 ms between are said, not counted. */
static void test_untraced(void **state)
{
	(void)state;
	world w;
	open_world(&w, SV_TT_THREAD_TIME);
	sv_tt *tt = w.tt;
	assert_int_equal(sv_tt_switch(tt, 0 * MS, 0, 0, SV_TT_OUT_WAIT, NULL, SV_STACK_NONE, 8, SV_STACK_NONE), 0);
	assert_int_equal(sv_tt_switch(tt, 1 * MS, 0, 8, SV_TT_OUT_WAIT, "S (sleeping)", SV_STACK_NONE, 0, SV_STACK_NONE), 0);
	assert_int_equal(sv_tt_wakeup(tt, 2 * MS, 8, 0, SV_STACK_NONE), 0);
	assert_int_equal(sv_tt_sample(tt, 4 * MS, 0, 8, stack(&w, 8, "work")), 0);
	assert_int_equal(sv_tt_switch(tt, 5 * MS, 0, 8, SV_TT_OUT_WAIT, "S (sleeping)", SV_STACK_NONE, 0, SV_STACK_NONE), 0);
	sv_tt_stats st;
	assert_int_equal(sv_tt_finish(tt, &st), 0);
	assert_int_equal(st.untraced, 1);
	assert_true(st.untraced_ms == 2);
	assert_int_equal(st.unpaired, 0);
	assert_true(st.cpu_ms == 2 && st.blocked_ms == 1 && st.readied_ms == 0); /* 0-1 and 4-5 ran */
	close_world(&w);
}

static void test_cpus(void **state)
{
	(void)state;
	world w;
	open_world(&w, SV_TT_THREAD_TIME);
	sv_tt *tt = w.tt;
	/* 1 runs on CPU 0 from 1 ms; 2 is sampled there at 3 ms without a switch on record: 1's
	 * slice is unknown (dropped), 2's time counts from its sample */
	assert_int_equal(sv_tt_switch(tt, 1 * MS, 0, 0, SV_TT_OUT_WAIT, NULL, SV_STACK_NONE, 1, SV_STACK_NONE), 0);
	assert_int_equal(sv_tt_sample(tt, 3 * MS, 0, 2, stack(&w, 2, "b")), 0);
	assert_int_equal(sv_tt_sample(tt, 4 * MS, 0, 2, stack(&w, 2, "c")), 0);
	/* 3 is sampled on CPU 1 at 2 and 3 ms, then on CPU 0 at 5 ms: it moved unseen */
	assert_int_equal(sv_tt_sample(tt, 2 * MS, 1, 3, stack(&w, 3, "x")), 0);
	assert_int_equal(sv_tt_sample(tt, 3 * MS, 1, 3, stack(&w, 3, "y")), 0);
	assert_int_equal(sv_tt_sample(tt, 5 * MS, 0, 3, stack(&w, 3, "z")), 0);
	/* ticks that come late do not end a slice */
	assert_int_equal(sv_tt_sample(tt, 8 * MS, 0, 3, stack(&w, 3, "z")), 0);
	sv_tt_stats st;
	assert_int_equal(sv_tt_finish(tt, &st), 0);
	assert_string_equal(dump(&w), "3 1 Thread (2);b;CPU_TIME\n"
				      "2 1 Thread (3);x;CPU_TIME\n"
				      "5 3 Thread (3);z;CPU_TIME\n");
	assert_int_equal(st.unpaired, 3); /* 1's slice, 2 moved off CPU 0 by 3, 3's move */
	close_world(&w);
	/* by CPU: a slice under the CPU it ran on, a wait under the CPU it ended on */
	open_world_cpu(&w, SV_TT_THREAD_TIME, true);
	tt = w.tt;
	assert_int_equal(sv_tt_switch(tt, 1 * MS, 0, 0, SV_TT_OUT_WAIT, NULL, SV_STACK_NONE, 1, SV_STACK_NONE), 0);
	assert_int_equal(sv_tt_switch(tt, 2 * MS, 0, 1, SV_TT_OUT_WAIT, "S (sleeping)", stack(&w, 1, "w"), 0, SV_STACK_NONE), 0);
	assert_int_equal(sv_tt_switch(tt, 4 * MS, 1, 0, SV_TT_OUT_WAIT, NULL, SV_STACK_NONE, 1, SV_STACK_NONE), 0);
	assert_string_equal(dump(&w), "1 1 CPU 0;Thread (1);CPU_TIME\n"
				      "2 2 CPU 1;Thread (1);w;Wait S (sleeping);BLOCKED_TIME\n");
	close_world(&w);
}

static void test_readied_by(void **state)
{
	(void)state;
	world w;
	open_world(&w, SV_TT_READIED_BY);
	sv_tt *tt = w.tt;
	assert_int_equal(sv_tt_switch(tt, 1 * MS, SV_TT_NO_CPU, 1, SV_TT_OUT_WAIT, "S (sleeping)", stack(&w, 1, "lock"), 0, SV_STACK_NONE), 0);
	assert_int_equal(sv_tt_wakeup(tt, 4 * MS, 1, 2, stack(&w, 2, "main;unlock")), 0);
	assert_int_equal(sv_tt_switch(tt, 4 * MS, SV_TT_NO_CPU, 2, SV_TT_OUT_WAIT, "S (sleeping)", SV_STACK_NONE, 1, SV_STACK_NONE), 0);
	/* woken by an interrupt (no thread): no READIED_BY frames */
	assert_int_equal(sv_tt_switch(tt, 5 * MS, SV_TT_NO_CPU, 1, SV_TT_OUT_WAIT, "S (sleeping)", stack(&w, 1, "lock"), 0, SV_STACK_NONE), 0);
	assert_int_equal(sv_tt_wakeup(tt, 6 * MS, 1, 0, SV_STACK_NONE), 0);
	assert_int_equal(sv_tt_switch(tt, 7 * MS, SV_TT_NO_CPU, 0, SV_TT_OUT_WAIT, NULL, SV_STACK_NONE, 1, SV_STACK_NONE), 0);
	assert_string_equal(dump(&w), "1 3 Thread (1);lock;Wait S (sleeping);READIED_BY Thread (2);main (READIED_BY);"
				      "unlock (READIED_BY);BLOCKED_TIME\n"
				      "4 1 Thread (1);lock;CPU_TIME\n"
				      "5 1 Thread (1);lock;Wait S (sleeping);BLOCKED_TIME\n"
				      "6 1 Thread (1);lock;READIED_TIME\n");
	close_world(&w);
}

static void test_views(void **state)
{
	(void)state;
	sv_tt_view v;
	assert_true(sv_tt_view_parse("off-cpu", &v) && v == SV_TT_OFF_CPU);
	assert_true(sv_tt_view_parse("thread-time-readied", &v) && v == SV_TT_READIED_BY);
	assert_false(sv_tt_view_parse("cpu-clock", &v));
	assert_false(sv_tt_view_parse(NULL, &v));
	for (int k = SV_TT_OFF_CPU; k <= SV_TT_READY_TIME; k++) {
		world w;
		open_world(&w, (sv_tt_view)k);
		assert_int_equal(sv_tt_switch(w.tt, 0, SV_TT_NO_CPU, 0, SV_TT_OUT_WAIT, NULL, SV_STACK_NONE, 1, SV_STACK_NONE), 0);
		assert_int_equal(sv_tt_switch(w.tt, 1 * MS, SV_TT_NO_CPU, 1, SV_TT_OUT_WAIT, "S (sleeping)", SV_STACK_NONE, 0, SV_STACK_NONE), 0);
		assert_int_equal(sv_tt_wakeup(w.tt, 3 * MS, 1, 0, SV_STACK_NONE), 0);
		assert_int_equal(sv_tt_switch(w.tt, 4 * MS, SV_TT_NO_CPU, 0, SV_TT_OUT_WAIT, NULL, SV_STACK_NONE, 1, SV_STACK_NONE), 0);
		assert_string_equal(dump(&w), k == SV_TT_OFF_CPU ? "1 2 Thread (1);Wait S (sleeping);BLOCKED_TIME\n"
								   "3 1 Thread (1);READIED_TIME\n"
								 : "3 1 Thread (1);READIED_TIME\n");
		close_world(&w);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intervals),
		cmocka_unit_test(test_incomplete),
		cmocka_unit_test(test_untraced),
		cmocka_unit_test(test_cpus),
		cmocka_unit_test(test_readied_by),
		cmocka_unit_test(test_views),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
