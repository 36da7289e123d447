/* SPDX-License-Identifier: MIT */
/* stackview check BUDGET [BASE... --] PROFILE...: a budget's rules (stackview/budget.h) on the
 * profiles, as a table, JSON or JUnit XML (--junit FILE) for CI. Exit 0 when every rule
 * passes, 1 when one fails (or a profile cannot be read), 2 for a bad budget file. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stackview/budget.h"
#include "stackview/compare.h"
#include "stackview/save.h"

/* A budget file larger than this is not a budget file. */
#define BUDGET_MAX_BYTES (1 << 20)

/* The file's text, NUL-terminated; an exit code on failure (said on stderr). */
static int read_budget(const char *file, char **out, size_t *len)
{
	FILE *f = fopen(file, "r");
	if (!f) {
		fprintf(stderr, "stackview: %s: %s\n", file, strerror(errno));
		return EXIT_USAGE;
	}
	char *buf = malloc(BUDGET_MAX_BYTES + 1);
	size_t n = buf ? fread(buf, 1, BUDGET_MAX_BYTES + 1, f) : 0;
	int rc = 0;
	if (!buf) {
		fprintf(stderr, "stackview: out of memory\n");
		rc = EXIT_INPUT;
	} else if (ferror(f)) {
		fprintf(stderr, "stackview: %s: %s\n", file, strerror(errno));
		rc = EXIT_USAGE;
	} else if (n > BUDGET_MAX_BYTES) {
		fprintf(stderr, "stackview: %s: longer than a budget file can be (1 MiB)\n", file);
		rc = EXIT_USAGE;
	}
	fclose(f);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

static void fmt_value(char *buf, size_t size, double v, bool pct, bool sign)
{
	char n[48];
	if (isinf(v))
		snprintf(n, sizeof(n), "%sinf", v < 0 ? "-" : "+");
	else
		sv_format_number(n, sizeof(n), v, pct ? 2 : 1);
	snprintf(buf, size, "%s%s%s", sign && v > 0 && !isinf(v) ? "+" : "", n, pct ? " %" : "");
}

static const char *verdict(const sv_rule *r)
{
	return !r->pass ? "FAIL" : r->noise ? "pass (not significant)" : !r->row ? "pass (no such row)" : "pass";
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s < 0x20 && *s != '\t')
				fprintf(f, "\\x%02x", (unsigned char)*s); /* XML 1.0 cannot carry it */
			else
				fputc(*s, f);
		}
	}
}

typedef struct junit_job {
	const sv_budget *b;
	const char *file;
	size_t failed;
} junit_job;

static int write_junit(FILE *f, void *payload, sv_error *err)
{
	(void)err;
	const junit_job *j = payload;
	size_t n = sv_budget_count(j->b);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites tests=\"%zu\" failures=\"%zu\">\n", n, j->failed);
	fputs("  <testsuite name=\"stackview check ", f);
	xml_text(f, j->file);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n", n, j->failed);
	for (size_t i = 0; i < n; i++) {
		const sv_rule *r = sv_budget_rule(j->b, i);
		char val[64], lim[64];
		fmt_value(val, sizeof(val), r->value, r->pct, r->kind == SV_RULE_GROWTH);
		fmt_value(lim, sizeof(lim), r->limit, r->pct, false);
		fputs("    <testcase classname=\"", f);
		xml_text(f, j->file);
		fprintf(f, "\" name=\"line %ld: ", r->line);
		xml_text(f, r->text);
		fputs("\" time=\"0\">", f);
		if (!r->pass) {
			fputs("\n      <failure message=\"", f);
			xml_text(f, r->row ? r->row : "(no row)");
			fprintf(f, ": %s, limit ", val);
			xml_text(f, sv_rule_op_text(r->op));
			fprintf(f, " %s\" type=\"budget\"/>\n    ", lim);
		} else if (r->noise) {
			fputs("\n      <system-out>", f);
			xml_text(f, r->row ? r->row : "");
			fprintf(f, ": %s is over the limit but not a significant change</system-out>\n    ", val);
		}
		fputs("</testcase>\n", f);
	}
	fputs("  </testsuite>\n</testsuites>\n", f);
	return ferror(f) ? SV_EIO : 0;
}

static void print_table(const sv_budget *b, const char *file, const cli_runs *runs, size_t failed)
{
	size_t n = sv_budget_count(b), nt = runs->n - runs->nbase;
	printf("Budget %s: %zu rule%s, %zu failed (%zu profile%s", file, n, n > 1 ? "s" : "", failed, nt,
	       nt > 1 ? "s, means" : "");
	if (runs->nbase)
		printf("; %zu base run%s", runs->nbase, runs->nbase > 1 ? "s" : "");
	printf(")\n\n");
	int rw = 4, nw = 4;
	for (size_t i = 0; i < n; i++) {
		const sv_rule *r = sv_budget_rule(b, i);
		int a = sv_text_width(r->text), c = r->row ? sv_text_width(r->row) : 10;
		rw = a > rw ? a : rw;
		nw = c > nw ? c : nw;
	}
	rw = rw > 60 ? 60 : rw;
	nw = nw > 60 ? 60 : nw;
	printf("%5s  %-*s  %-*s  %12s  %12s  %s\n", "Line", rw, "Rule", nw, "Row", "Value", "Limit", "Verdict");
	for (size_t i = 0; i < n; i++) {
		const sv_rule *r = sv_budget_rule(b, i);
		char val[64], l2[64], lim[80];
		fmt_value(val, sizeof(val), r->value, r->pct, r->kind == SV_RULE_GROWTH);
		fmt_value(l2, sizeof(l2), r->limit, r->pct, false);
		snprintf(lim, sizeof(lim), "%s %s", sv_rule_op_text(r->op), l2);
		printf("%5ld  %-*.*s  %-*.*s  %12s  %12s  %s\n", r->line, rw, rw, r->text, nw, nw, r->row ? r->row : "(no match)",
		       val, lim, verdict(r));
	}
}

static void print_json(const sv_budget *b, const char *file, const cli_runs *runs, size_t failed)
{
	jw w = { .o.f = stdout };
	jw_begin_obj(&w);
	jw_key(&w, "budget"); jw_str(&w, file);
	jw_key(&w, "profiles"); jw_int(&w, (long long)(runs->n - runs->nbase));
	jw_key(&w, "base_runs"); jw_int(&w, (long long)runs->nbase);
	jw_key(&w, "failed"); jw_int(&w, (long long)failed);
	jw_key(&w, "rules");
	jw_begin_arr(&w);
	for (size_t i = 0; i < sv_budget_count(b); i++) {
		const sv_rule *r = sv_budget_rule(b, i);
		jw_begin_obj(&w);
		jw_key(&w, "line"); jw_int(&w, r->line);
		jw_key(&w, "rule"); jw_str(&w, r->text);
		jw_key(&w, "kind"); jw_str(&w, r->kind == SV_RULE_INC ? "inc" : r->kind == SV_RULE_EXC ? "exc" : "growth");
		jw_key(&w, "row");
		jw_str(&w, r->row);
		jw_key(&w, "value");
		if (isfinite(r->value))
			jw_num(&w, r->value);
		else
			jw_null(&w);
		jw_key(&w, "op"); jw_str(&w, sv_rule_op_text(r->op));
		jw_key(&w, "limit"); jw_num(&w, r->limit);
		jw_key(&w, "unit"); jw_str(&w, r->pct ? "%" : "metric");
		jw_key(&w, "pass"); jw_bool(&w, r->pass);
		jw_key(&w, "significant"); jw_bool(&w, !r->noise);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_end_obj(&w);
	putchar('\n');
}

int cmd_check(const cli_opts *o)
{
	sv_budget *b = NULL;
	cli_runs runs = { 0 };
	const char *file = o->files[0];
	char *text = NULL;
	size_t len = 0;
	sv_error err;
	sv_error_clear(&err);
	int rc = read_budget(file, &text, &len);
	if (rc)
		goto out;
	snprintf(err.file, sizeof(err.file), "%s", file);
	if (sv_budget_parse(&b, text, len, &err)) {
		cli_report(&err);
		rc = err.code == SV_ENOMEM ? EXIT_INPUT : EXIT_USAGE;
		goto out;
	}
	/* growth rules without base runs: said before anything is loaded */
	for (size_t i = 0; o->split < 0 && i < sv_budget_count(b); i++)
		if (sv_budget_rule(b, i)->kind == SV_RULE_GROWTH) {
			fprintf(stderr, "stackview: %s:%ld: a growth rule needs base runs: stackview check BUDGET BASE... -- PROFILE...\n",
				file, sv_budget_rule(b, i)->line);
			rc = EXIT_USAGE;
			goto out;
		}
	const char *none[SV_BOX_COUNT] = { 0 };
	if ((rc = cli_runs_load(&runs, o, 1, none, false)))
		goto out;
	size_t failed = 0;
	sv_error_clear(&err);
	snprintf(err.file, sizeof(err.file), "%s", file);
	if (sv_budget_eval(b, (const sv_source *const *)runs.src + runs.nbase, runs.n - runs.nbase, runs.cmp, &failed, &err)) {
		cli_report(&err);
		rc = err.code == SV_ENOMEM ? EXIT_INPUT : EXIT_USAGE;
		goto out;
	}
	if (o->out == OUT_JSON)
		print_json(b, file, &runs, failed);
	else
		print_table(b, file, &runs, failed);
	if ((rc = cli_finish_output(stdout)))
		goto out;
	if (o->junit) {
		junit_job j = { b, file, failed };
		sv_error_clear(&err);
		if (cli_write_atomic(o->junit, write_junit, &j, &err)) {
			cli_report(&err);
			rc = EXIT_OUTPUT;
			goto out;
		}
	}
	rc = failed ? 1 : 0;
out:
	free(text);
	cli_runs_dispose(&runs);
	sv_budget_free(b);
	return rc;
}
