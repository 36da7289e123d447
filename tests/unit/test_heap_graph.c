/* SPDX-License-Identifier: MIT */
/* Heap graph -> samples (lib/heap_graph.c): PerfView's spanning tree on a small graph with
 * two root categories, a cycle among reachable objects and one among unreachable ones; a
 * priority change moving an object to another parent as PerfView's algorithm says, also when
 * the object with a priority is met late; sampled types' multipliers; priority pattern errors;
 * damaged node data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv/heap_graph.h"
#include "unit.h"

/* PerfView's WriteCompressedInt */
static size_t put(unsigned char *o, int32_t v)
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

enum { T_ROOT, T_STATIC, T_LOCAL, T_A, T_B, T_C, T_ORPHAN, NTYPES };
static const sv_heap_type types[NTYPES] = {
	{ "[.NET Roots]", 12, 0, 1 }, { "[static vars]", 13, 0, 1 }, { "[local vars]", 12, 0, 1 },
	{ "app!A", 5, 10, 1 },        { "app!B", 5, 20, 1 },         { "app!C", 5, 30, 2 }, /* sampled: one C is two */
	{ "app!Orphan", 10, 5, 1 },
};

typedef struct graph {
	unsigned char labels[64], blob[256];
	sv_heap_graph g;
} graph;

/* node i: its type and its children (-1 ends) */
static void build(graph *gr, const int (*nodes)[5], uint32_t n)
{
	uint32_t at = 0;
	for (uint32_t i = 0; i < n; i++) {
		memcpy(gr->labels + i * 4, &at, 4); /* little-endian machines only, as the readers' files */
		int nk = 0;
		while (nk < 4 && nodes[i][1 + nk] >= 0)
			nk++;
		at += (uint32_t)put(gr->blob + at, nodes[i][0] << 1);
		at += (uint32_t)put(gr->blob + at, nk);
		for (int k = 0; k < nk; k++)
			at += (uint32_t)put(gr->blob + at, nodes[i][1 + k] - (int)i);
	}
	gr->g = (sv_heap_graph){ n, 0, NTYPES, gr->labels, gr->blob, at, types };
}

/* root [.NET Roots] -> [static vars] -> A -> C <-> B, [local vars] -> B; B -> A as well;
 * two orphans referring to each other */
static const int heap[][5] = {
	{ T_ROOT, 1, 2, -1 }, { T_STATIC, 3, -1 }, { T_LOCAL, 4, -1 }, { T_A, 5, -1 },
	{ T_B, 5, 3, -1 },    { T_C, 4, -1 },      { T_ORPHAN, 7, -1 }, { T_ORPHAN, 6, -1 },
};

/* Each sample as "path;of;frames metric count", root first, one line each, in sample order. */
static void tree(const char *pats, char *out, size_t cap, size_t *unreachable)
{
	graph gr;
	build(&gr, heap, 8);
	sv_source *src;
	sv_error err;
	float prio[NTYPES];
	assert_int_equal(sv_source_new(&src, "test"), 0);
	assert_int_equal(sv_heap_priorities(prio, types, NTYPES, pats, &err), 0);
	sv_sink sink = sv_source_sink(src);
	uint32_t bad = 0;
	assert_int_equal(sv_heap_tree(&gr.g, prio, &sink, NULL, unreachable, &bad, &err), 0);
	size_t o = 0;
	sv_samples smp = sv_source_samples(src);
	for (size_t i = 0; i < smp.n; i++) {
		const char *names[16];
		int n = 0;
		for (sv_stack_id s = smp.stack[i]; s != SV_STACK_NONE && n < 16; s = sv_source_stack_caller(src, s))
			names[n++] = sv_source_frame_name(src, sv_source_stack_frame(src, s));
		while (n-- > 0)
			o += (size_t)snprintf(out + o, cap - o, "%s%s", names[n], n ? ";" : "");
		o += (size_t)snprintf(out + o, cap - o, " %g %g\n", sv_sample_metric(&smp, i), sv_sample_count(&smp, i));
	}
	sv_source_free(src);
}

/* The statics walked first: A, then C through A, then B through C */
static const char statics_first[] = "[.NET Roots] 0 1\n"
				    "[.NET Roots];[static vars] 0 1\n"
				    "[.NET Roots];[static vars];app!A 10 1\n"
				    "[.NET Roots];[static vars];app!A;app!C 60 2\n"
				    "[.NET Roots];[static vars];app!A;app!C;app!B 20 1\n"
				    "[.NET Roots];[local vars] 0 1\n"
				    "[not reachable from roots];app!Orphan 5 1\n"
				    "[not reachable from roots];app!Orphan;app!Orphan 5 1\n";

static void test_default_priorities(void **state)
{
	(void)state;
	char out[2048];
	size_t lost;
	/* [local vars] is -1000 by default: the statics are walked first and take A, then C
	 * (through A), then B (through C); the orphans' cycle starts at the first of them */
	tree(sv_heap_default_priorities(), out, sizeof(out), &lost);
	assert_string_equal(out, statics_first);
	assert_int_equal(lost, 1);
}

static void test_priority_moves(void **state)
{
	(void)state;
	char out[2048];
	size_t lost;
	/* [local vars] raised above the statics: it is walked first and takes B, and B (a tenth
	 * of 10 above the others) takes C and A before the statics are reached */
	tree("[local vars]->10", out, sizeof(out), &lost);
	assert_string_equal(out, "[.NET Roots] 0 1\n"
				 "[.NET Roots];[local vars] 0 1\n"
				 "[.NET Roots];[local vars];app!B 20 1\n"
				 "[.NET Roots];[local vars];app!B;app!C 60 2\n"
				 "[.NET Roots];[local vars];app!B;app!A 10 1\n"
				 "[.NET Roots];[static vars] 0 1\n"
				 "[not reachable from roots];app!Orphan 5 1\n"
				 "[not reachable from roots];app!Orphan;app!Orphan 5 1\n");
	/* the first pattern that matches a type decides */
	float prio[NTYPES];
	sv_error err;
	assert_int_equal(sv_heap_priorities(prio, types, NTYPES, "app!B->3; app!%->1 ;;", &err), 0);
	assert_true(prio[T_B] == 3 && prio[T_A] == 1 && prio[T_C] == 1 && prio[T_ROOT] == 0);
}

/* A node of a type with a priority met only after other nodes are taken still has it (the
 * walk stops looking priorities up once every such node is taken, not before) */
static void test_priority_met_late(void **state)
{
	(void)state;
	char out[2048];
	size_t lost;
	/* A (5) is met after both root categories are taken; C then has half a point and B a
	 * twentieth, above [local vars] (0): B is reached through C first */
	tree("app!A->5", out, sizeof(out), &lost);
	assert_string_equal(out, statics_first);
	/* without it, [local vars] is taken before A and takes B */
	tree("", out, sizeof(out), &lost);
	assert_string_equal(out, "[.NET Roots] 0 1\n"
				 "[.NET Roots];[static vars] 0 1\n"
				 "[.NET Roots];[local vars] 0 1\n"
				 "[.NET Roots];[static vars];app!A 10 1\n"
				 "[.NET Roots];[local vars];app!B 20 1\n"
				 "[.NET Roots];[static vars];app!A;app!C 60 2\n"
				 "[not reachable from roots];app!Orphan 5 1\n"
				 "[not reachable from roots];app!Orphan;app!Orphan 5 1\n");
}

static void test_errors(void **state)
{
	(void)state;
	float prio[NTYPES];
	sv_error err;
	assert_int_equal(sv_heap_priorities(prio, types, NTYPES, "A->1;B", &err), SV_EINVAL);
	assert_string_equal(err.msg, "'B': expected PATTERN->NUMBER");
	assert_int_equal(sv_heap_priorities(prio, types, NTYPES, "A->x", &err), SV_EINVAL);
	assert_string_equal(err.msg, "'A->x': the priority after -> is not a number");
	/* a child outside the graph: the node is named */
	static const int broken[][5] = { { T_ROOT, 1, -1 }, { T_A, 9, -1 } };
	graph gr;
	build(&gr, broken, 2);
	sv_source *src;
	assert_int_equal(sv_source_new(&src, "test"), 0);
	sv_sink sink = sv_source_sink(src);
	size_t lost;
	uint32_t bad = 0;
	assert_int_equal(sv_heap_priorities(prio, types, NTYPES, "", &err), 0);
	assert_int_equal(sv_heap_tree(&gr.g, prio, &sink, NULL, &lost, &bad, &err), SV_EFORMAT);
	assert_int_equal(bad, 1);
	assert_string_equal(err.msg, "node 1 refers to a node outside the graph");
	/* a child count the node's data cannot hold */
	gr.blob[gr.g.blob_len - 2] = 0x7f >> 1; /* node 1's count: 63 children in 1 byte left */
	assert_int_equal(sv_heap_tree(&gr.g, prio, &sink, NULL, &lost, &bad, &err), SV_EFORMAT);
	assert_string_equal(err.msg, "node 1's data is damaged");
	sv_source_free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_default_priorities), cmocka_unit_test(test_priority_moves),
					    cmocka_unit_test(test_priority_met_late),
					    cmocka_unit_test(test_errors) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
