/* SPDX-License-Identifier: MIT */
/* `perf script` text: where each sample's code executed (annotate and Goto Source, issue 36).
 * A frame line prints an address, the symbol with its offset and the file; perf prints a
 * callchain's addresses as the file's (map-relative), a lone sample's as the process's. The
 * line's file is read as perf.data's files are (its path, --symfs, the debug directories) and
 * the address is taken only when the file agrees with the line: the address, read as the
 * file's address or as an offset in it, lies in the symbol the line names, at the offset it
 * prints. A file that is not the one recorded (rebuilt, another machine's library) gives no
 * location rather than another program's instructions. */
#include <stdlib.h>
#include <string.h>

#include "script_int.h"

static bool hex_value(span s, uint64_t *v)
{
	if (s.n > 2 && s.p[0] == '0' && (s.p[1] | 0x20) == 'x')
		s.p += 2, s.n -= 2;
	if (!s.n || s.n > 16)
		return false;
	*v = 0;
	for (size_t i = 0; i < s.n; i++) {
		char ch = s.p[i];
		if (!sv_ps_hexdigit(ch))
			return false;
		*v = *v << 4 | (uint64_t)(ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10);
	}
	return true;
}

/* "name+0x1a": the name and the offset (false when no offset is printed). */
static bool split_symoff(span sym, span *name, uint64_t *off)
{
	*name = sv_ps_strip_offset(sym);
	return name->n < sym.n && hex_value((span){ sym.p + name->n + 1, sym.n - name->n - 1 }, off);
}

/* The line's address in its file, when the file agrees with the line (see above). */
static int file_address(ps_ctx *c, const raw_frame *f, uint64_t ip, uint32_t *file, uint64_t *addr)
{
	*file = SV_LOC_NONE;
	sv_perf_dso *d;
	int rc = sv_perf_dso_for(&c->syms, c->opts, f->dso.p, f->dso.n, NULL, 0, &d);
	if (rc || !d)
		return rc;
	span name;
	uint64_t off = 0;
	bool has_off = split_symoff(f->sym, &name, &off);
	uint64_t cand[2] = { ip, sv_perf_dso_addr(d, ip) };
	for (int k = 0; k < 2; k++) {
		long i = sv_perf_dso_find(d, cand[k]);
		if (i < 0 || (has_off && d->syms[i].start + off != cand[k]))
			continue;
		const char *nm = sv_perf_dso_name(d, i);
		if (strlen(nm) != name.n || memcmp(nm, name.p, name.n) != 0)
			continue;
		uint32_t cf = d->code_file - 1;
		if (!d->code_file) {
			if ((rc = c->sink->ops->intern_code_file(c->sink->self, &cf, d->elf_path)))
				return rc;
			d->code_file = cf + 1;
		}
		*file = cf;
		*addr = cand[k];
		return 0;
	}
	return 0;
}

int sv_ps_frame_location(ps_ctx *c, const raw_frame *f, sv_frame_id frame, bool leaf, uint32_t *out)
{
	*out = SV_LOC_NONE;
	uint64_t ip;
	if (f->inlined || !hex_value(f->addr, &ip))
		return 0;
	uint32_t file = SV_LOC_NONE;
	uint64_t addr = ip;
	int rc = f->dso.n && f->dso.p[0] == '/' ? file_address(c, f, ip, &file, &addr) : 0;
	if (rc)
		return rc;
	if (file == SV_LOC_NONE) /* a leaf has a location without a file, so that its path ends there */
		return leaf ? c->sink->ops->intern_location(c->sink->self, out, frame, SV_LOC_NONE, ip) : 0;
	/* a caller's line prints its return address (frame pointers) or the byte before it
	 * (DWARF): one byte back is in the call instruction either way */
	return c->sink->ops->intern_location(c->sink->self, out, frame, file, leaf ? addr : addr - 1);
}

bool sv_ps_code_wanted(const ps_ctx *c)
{
	const sv_sink_ops *o = c->sink->ops;
	/* (info's note counts the files whose frames agree with them: found as annotate finds them) */
	return !c->tt_on && (!c->opts->no_code || c->opts->code_notes) && o->intern_code_file && o->intern_location &&
	       o->intern_code_path && o->add_sample_at;
}

int sv_ps_code_path(ps_ctx *c, uint32_t *out)
{
	*out = SV_LOC_NONE;
	for (size_t i = c->nlocs; i-- > 0;) {
		int rc = c->sink->ops->intern_code_path(c->sink->self, out, *out, c->locs[i]);
		if (rc)
			return rc;
	}
	return 0;
}

int sv_ps_code_note(ps_ctx *c)
{
	const sv_source *src = sv_sink_source(c->sink);
	uint32_t found = src ? sv_source_code_file_count(src) : 0;
	size_t named = 0;
	for (size_t i = 0; c->syms && i < sv_perf_dso_count(c->syms); i++)
		named += sv_perf_dso_at(c->syms, i)->path[0] == '/';
	if (found)
		return sv_sink_note(c->sink, SV_NOTE_INFO, "code for annotate: %u file%s, read where the frame lines name them", found,
				    found == 1 ? "" : "s");
	if (named)
		return sv_sink_note(c->sink, SV_NOTE_INFO,
				    "code for annotate: none of the files the frame lines name is here as recorded (annotate "
				    "reads each at its path, or under --symfs DIR; a file rebuilt since does not agree with the lines)");
	return 0;
}
