/* SPDX-License-Identifier: MIT */
/* Goto Source (stackview/formats.h sv_goto_source): the function a name means with the most
 * inclusive cost in the view, its code decoded (disasm.c) for the source line of every
 * address, and each line's exclusive and inclusive cost from the view's code paths
 * (lib/annotate.c sv_view_key_costs). */
#include "stackview/formats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "code_int.h"
#include "sv/array.h"

typedef struct fn_key {
	uint32_t file;
	sv_frame_id frame;
} fn_key;

/* Each located code address of the frames `name` means gets its function's index (file and
 * frame); *nfn functions in fns. */
static int function_keys(const sv_source *src, const char *name, uint32_t *key, fn_key **fns, uint32_t *nfn)
{
	uint32_t nl = sv_source_location_count(src), nf = sv_source_frame_count(src);
	size_t cap = 0;
	bool *want = calloc(nf ? nf : 1, sizeof(*want));
	if (!want)
		return SV_ENOMEM;
	for (sv_frame_id f = 0; f < nf; f++)
		want[f] = sv_frame_is(src, f, name);
	*fns = NULL;
	*nfn = 0;
	int rc = 0;
	for (uint32_t l = 0; l < nl && !rc; l++) {
		sv_location x = sv_source_location(src, l);
		const char *sf;
		key[l] = UINT32_MAX;
		if ((x.file == SV_LOC_NONE && !sv_source_location_line(src, l, &sf)) || !want[x.frame])
			continue;
		uint32_t k = 0;
		while (k < *nfn && ((*fns)[k].file != x.file || (*fns)[k].frame != x.frame))
			k++;
		if (k == *nfn) {
			size_t have = *nfn;
			if (SV_ARRAY_PUSH(*fns, have, cap, ((fn_key){ x.file, x.frame }))) {
				rc = SV_ENOMEM;
				break;
			}
			*nfn = (uint32_t)have;
		}
		key[l] = k;
	}
	free(want);
	return rc;
}

static int by_file_line(const void *a, const void *b)
{
	const sv_source_line *x = a, *y = b;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/* The line table of index `k` in g->lines for (file, line), by binary search; SIZE_MAX when none. */
static size_t line_index(const sv_srcview *g, uint32_t file, uint32_t line)
{
	sv_source_line want = { file, line, { 0, 0, 0, 0 } };
	const sv_source_line *hit = bsearch(&want, g->lines, g->nlines, sizeof(*g->lines), by_file_line);
	return hit ? (size_t)(hit - g->lines) : SIZE_MAX;
}

/* The function's lines: every (file, line) its instructions have or were inlined at, then
 * each location's line (the instruction holding its address) as the key of its costs, and
 * the lines its code was inlined at as further keys counted inclusively (*xoff, *xkey: as
 * sv_view_key_costs takes them; the caller frees them). */
static int lines_of(sv_srcview *g, const sv_disasm *d, const sv_source *src, uint32_t file, uint32_t *key,
		    uint32_t **xoff, uint32_t **xkey)
{
	g->lines = calloc(d->n + d->nsites ? d->n + d->nsites : 1, sizeof(*g->lines));
	uint32_t nl = sv_source_location_count(src);
	*xoff = calloc((size_t)nl + 1, sizeof(**xoff));
	if (!g->lines || !*xoff)
		return SV_ENOMEM;
	for (size_t i = 0; i < d->n; i++)
		if (d->insns[i].line)
			g->lines[g->nlines++] = (sv_source_line){ d->insns[i].file, d->insns[i].line, { 0, 0, 0, 0 } };
	for (size_t i = 0; i < d->nsites; i++)
		g->lines[g->nlines++] = (sv_source_line){ d->sites[i].file, d->sites[i].line, { 0, 0, 0, 0 } };
	qsort(g->lines, g->nlines, sizeof(*g->lines), by_file_line);
	size_t n = 0;
	for (size_t i = 0; i < g->nlines; i++)
		if (!n || by_file_line(&g->lines[n - 1], &g->lines[i]))
			g->lines[n++] = g->lines[i];
	g->nlines = n;
	size_t nx = 0, xcap = 0;
	for (uint32_t l = 0; l < nl; l++) {
		sv_location x = sv_source_location(src, l);
		size_t i = x.file == file && x.frame == g->frame ? sv_insn_at(d, x.addr) : SIZE_MAX;
		const sv_insn *in = i == SIZE_MAX ? NULL : &d->insns[i];
		size_t k = in && in->line ? line_index(g, in->file, in->line) : SIZE_MAX;
		key[l] = k == SIZE_MAX ? UINT32_MAX : (uint32_t)k;
		(*xoff)[l] = (uint32_t)nx;
		for (uint32_t s = 0; in && s < in->nsite; s++) {
			const sv_callsite *c = &d->sites[in->site + s];
			size_t ck = line_index(g, c->file, c->line);
			if (ck != SIZE_MAX && SV_ARRAY_PUSH(*xkey, nx, xcap, (uint32_t)ck))
				return SV_ENOMEM;
		}
	}
	(*xoff)[nl] = (uint32_t)nx;
	return 0;
}

/* The lines the input gave its locations (pprof): the function's lines are those of its
 * locations; each location's key is its line's index. */
static int lines_given(sv_srcview *g, const sv_source *src, uint32_t fn, uint32_t *key)
{
	uint32_t nl = sv_source_location_count(src);
	size_t n = 0, cap = 0, fcap = 0;
	for (uint32_t l = 0; l < nl; l++) {
		const char *sf;
		uint32_t line = key[l] == fn ? sv_source_location_line(src, l, &sf) : 0;
		if (!line) {
			key[l] = UINT32_MAX;
			continue;
		}
		uint32_t fi = 0;
		while (fi < g->nfiles && strcmp(g->files[fi], sf))
			fi++;
		if (fi == g->nfiles) {
			char *copy = strdup(sf);
			if (!copy || SV_ARRAY_PUSH(g->files, g->nfiles, fcap, copy)) {
				free(copy);
				return SV_ENOMEM;
			}
		}
		if (SV_ARRAY_RESERVE(g->lines, cap, n + 1))
			return SV_ENOMEM;
		g->lines[n++] = (sv_source_line){ fi, line, { 0, 0, 0, 0 } };
	}
	qsort(g->lines, n, sizeof(*g->lines), by_file_line);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (!u || by_file_line(&g->lines[u - 1], &g->lines[i]))
			g->lines[u++] = g->lines[i];
	g->nlines = u;
	for (uint32_t l = 0; l < nl; l++) {
		if (key[l] == UINT32_MAX)
			continue;
		const char *sf;
		uint32_t line = sv_source_location_line(src, l, &sf);
		uint32_t fi = 0;
		while (fi < g->nfiles && strcmp(g->files[fi], sf))
			fi++;
		size_t k = line_index(g, fi, line);
		key[l] = k == SIZE_MAX ? UINT32_MAX : (uint32_t)k;
	}
	return 0;
}

int sv_goto_source(sv_srcview *g, const sv_view *v, const char *name, const char *source_path, const char *debug_dirs,
		   sv_error *err)
{
	memset(g, 0, sizeof(*g));
	const sv_source *src = g->src = sv_view_source(v);
	uint32_t nl = sv_source_location_count(src), nfn = 0;
	if (!nl || !sv_source_sample_code_paths(src))
		return SV_ENOTFOUND;
	uint32_t *key = malloc(nl * sizeof(*key));
	fn_key *fns = NULL;
	sv_key_cost *fc = NULL;
	sv_disasm d = { 0 };
	uint32_t *xoff = NULL, *xkey = NULL; /* inline call sites' lines per location */
	int rc = key ? function_keys(src, name, key, &fns, &nfn) : SV_ENOMEM;
	if (!rc && nfn && !(fc = malloc(nfn * sizeof(*fc))))
		rc = SV_ENOMEM;
	if (!rc && nfn)
		rc = sv_view_key_costs(v, key, NULL, NULL, nfn, fc);
	/* the heaviest by inclusive cost: a function can be all callers' lines (main) */
	uint32_t best = UINT32_MAX;
	for (uint32_t k = 0; !rc && k < nfn; k++)
		if ((fc[k].inc != 0 || fc[k].inc_ct != 0) && (best == UINT32_MAX || fabs(fc[k].inc) > fabs(fc[best].inc)))
			best = k;
	if (!rc && best == UINT32_MAX)
		rc = SV_ENOTFOUND;
	if (rc) {
		if (rc == SV_ENOMEM)
			sv_error_set(err, rc, NULL);
		goto out;
	}
	g->frame = fns[best].frame;
	g->path = fns[best].file == SV_LOC_NONE ? "the profile's own line numbers" : sv_source_code_file(src, fns[best].file);
	g->total = fc[best];
	sv_summary sum;
	sv_view_summary(&sum, v);
	g->view_metric = sum.metric;
	g->callers = sv_source_has_code_callers(src);
	/* any address of it: the first location found; lines the input gave need no decoding */
	uint64_t addr = 0;
	bool given = false;
	for (uint32_t l = 0; l < nl && !given; l++) {
		const char *sf;
		if (key[l] == best)
			addr = sv_source_location(src, l).addr, given = sv_source_location_line(src, l, &sf) != 0;
	}
	if (given) {
		g->path = "the profile's own line numbers"; /* read from it, whatever file its code is in */
		const char *shrt = sv_source_frame_short(src, g->frame), *bang = strchr(shrt, '!');
		if (!(g->symbol = strdup(bang ? bang + 1 : shrt)) || (rc = lines_given(g, src, best, key))) {
			rc = sv_error_set(err, SV_ENOMEM, NULL);
			goto out;
		}
	} else if ((rc = sv_disasm_function(&d, g->path, sv_source_code_file_symbols(src, fns[best].file), debug_dirs, addr, err))) {
		goto out;
	}
	if (!given) {
		g->symbol = d.symbol;
		d.symbol = NULL;
		g->files = d.files;
		g->nfiles = d.nfiles;
		d.files = NULL;
		d.nfiles = 0;
		if ((rc = lines_of(g, &d, src, fns[best].file, key, &xoff, &xkey))) {
			sv_error_set(err, rc, NULL);
			goto out;
		}
	}
	sv_key_cost *lc = calloc(g->nlines ? g->nlines : 1, sizeof(*lc));
	if (!lc || (rc = sv_view_key_costs(v, key, xoff, xkey, (uint32_t)g->nlines, lc))) {
		free(lc);
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	for (size_t i = 0; i < g->nlines; i++) {
		g->lines[i].cost = lc[i];
		const sv_key_cost *h = &g->lines[g->hottest].cost;
		if (fabs(lc[i].inc) > fabs(h->inc) || (lc[i].inc == h->inc && fabs(lc[i].exc) > fabs(h->exc)))
			g->hottest = i;
	}
	free(lc);
	/* its own file: that of its first instruction not inlined from elsewhere (else the
	 * hottest line's) */
	g->own_file = g->nlines ? g->lines[g->hottest].file : 0;
	for (size_t i = 0; !given && i < d.n; i++)
		if (d.insns[i].line && !d.insns[i].nsite) {
			g->own_file = d.insns[i].file;
			break;
		}
	sv_src_text *srcs = calloc(g->nfiles ? g->nfiles : 1, sizeof(*srcs));
	if (!srcs) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	g->srcs = srcs;
	for (size_t i = 0; i < g->nfiles; i++)
		sv_src_load(&srcs[i], g->files[i], source_path, &d);
out:
	sv_disasm_dispose(&d);
	free(xoff);
	free(xkey);
	free(key);
	free(fns);
	free(fc);
	if (rc)
		sv_srcview_dispose(g);
	return rc;
}

static void cost_cells(FILE *f, const sv_srcview *g, const sv_key_cost *c)
{
	double base = g->view_metric != 0 ? 100.0 / g->view_metric : 0;
	if (c->inc == 0 && c->inc_ct == 0)
		fprintf(f, "%8s %8s %10s %10s", "", "", "", "");
	else
		fprintf(f, "%8.2f %8.2f %10.3f %10.3f", c->inc * base, c->exc * base, c->inc, c->exc);
}

void sv_srcview_print(FILE *f, const sv_srcview *g, size_t *line_row)
{
	const char *event = sv_source_event_name(g->src);
	size_t row = 0;
	fprintf(f, "Goto Source: %s (%s in %s): Inc %.3f (%.2f %% of the view), Exc %.3f, %.0f samples (%s)%s\n",
		sv_source_frame_name(g->src, g->frame), g->symbol, g->path, g->total.inc,
		g->view_metric != 0 ? 100.0 * g->total.inc / g->view_metric : 0, g->total.exc, g->total.inc_ct,
		event ? event : "samples",
		g->callers ? "" : "; inclusive lines count leaves only: the callers' addresses were not loaded");
	row++;
	const sv_src_text *srcs = g->srcs;
	/* the function's own file first, whole from its first line to its last; then the files
	 * of code inlined into it, the lines that have code or were inlined at */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < g->nlines;) {
			uint32_t file = g->lines[i].file;
			size_t j = i;
			while (j < g->nlines && g->lines[j].file == file)
				j++;
			if ((file == g->own_file) != (pass == 0)) {
				i = j;
				continue;
			}
			const sv_src_text *t = &srcs[file];
			if (t->text)
				fprintf(f, "\n%s\n", g->files[file]);
			else
				fprintf(f, "\n%s   (source not found; looked at %s)\n", g->files[file],
					t->tried ? t->tried : "nothing");
			fprintf(f, "%6s %8s %8s %10s %10s | %s\n", "Line", "Inc %", "Exc %", "Inc", "Exc", "Source");
			row += 3;
			bool whole = t->text && file == g->own_file;
			uint32_t first = g->lines[i].line, last = g->lines[j - 1].line;
			for (uint32_t ln = first, k = (uint32_t)i; ln <= last; ln++) {
				bool has = k < j && g->lines[k].line == ln;
				if (!has && !whole)
					continue;
				if (has && line_row)
					line_row[k] = row;
				fprintf(f, "%6u ", ln);
				if (has)
					cost_cells(f, g, &g->lines[k].cost);
				else
					fprintf(f, "%8s %8s %10s %10s", "", "", "", "");
				fputs(" | ", f);
				sv_put_source(f, sv_src_line(t, ln));
				fputc('\n', f);
				row++;
				if (has)
					k++;
			}
			i = j;
		}
}

void sv_srcview_dispose(sv_srcview *g)
{
	sv_src_text *srcs = g->srcs;
	for (size_t k = 0; srcs && k < g->nfiles; k++)
		sv_src_dispose(&srcs[k]);
	free(srcs);
	for (size_t k = 0; k < g->nfiles; k++)
		free(g->files[k]);
	free(g->files);
	free(g->symbol);
	free(g->lines);
	memset(g, 0, sizeof(*g));
}
