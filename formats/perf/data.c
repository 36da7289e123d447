/* SPDX-License-Identifier: MIT */
/* Native perf.data reader (spec/perf.md §5–7; semantics.md §1.5 with decision D3).
 *
 * File and pipe mode; attrs of any size; features (build ids, hostname, release, version,
 * arch, CPUs, command line, event names); records walked by their size, zstd-compressed
 * records inflated as one stream. Kernel records are indexed with their time, stably sorted,
 * then handed in time order to stacks.c, which keeps the address spaces and threads and
 * turns samples of the chosen event into stacks (`module!symbol` frames under `Thread (tid)`
 * and `Process comm (pid)`). The metric is perf's period (ms for cpu-clock/task-clock). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "data_int.h"

/* ---- header, selection, finish ---- */

static int read_file_header(pdr *r, size_t *data_off, size_t *data_end)
{
	const unsigned char *d = r->d;
	size_t n = r->n;
	if (n < 16)
		return sv_pdr_fail(r, SV_EFORMAT, 0, "truncated perf.data header (%zu bytes)", n);
	if (memcmp(d, "2ELIFREP", 8) == 0)
		return sv_pdr_fail(r, SV_EUNSUPPORTED, 0, "perf.data written on a big-endian machine is not supported");
	if (memcmp(d, "PERFFILE", 8) == 0)
		return sv_pdr_fail(r, SV_EUNSUPPORTED, 0, "perf.data version 1 (PERFFILE) is not supported; re-record with a newer perf");
	if (memcmp(d, "PERFILE2", 8) != 0)
		return sv_pdr_fail(r, SV_EFORMAT, 0, "not a perf.data file (no PERFILE2 magic)");
	uint64_t hsize = rd64(d + 8);
	if (hsize == 16) {
		r->pipe = true;
		*data_off = 16;
		*data_end = n;
		return 0;
	}
	if (hsize < 104 || n < 104)
		return sv_pdr_fail(r, SV_EFORMAT, n < 104 ? n : 8, "truncated perf.data header (%zu of 104 bytes)", n < 104 ? n : (size_t)hsize);
	uint64_t attr_size = rd64(d + 16), aoff = rd64(d + 24), asz = rd64(d + 32), doff = rd64(d + 40), dsz = rd64(d + 48);
	if (attr_size < 64 + 16 || attr_size > 4096)
		return sv_pdr_fail(r, SV_EFORMAT, 16, "attribute entry size %" PRIu64 " out of range", attr_size);
	if (aoff > n || asz > n - aoff)
		return sv_pdr_fail(r, SV_EFORMAT, 24, "attribute section (%" PRIu64 " bytes at %" PRIu64 ") lies past the end of the file (%zu bytes)",
			    asz, aoff, n);
	if (doff > n)
		return sv_pdr_fail(r, SV_EFORMAT, 40, "data section starts at %" PRIu64 ", past the end of the file (%zu bytes)", doff, n);
	for (uint64_t o = 0; o + attr_size <= asz; o += attr_size) {
		const unsigned char *e = d + aoff + o;
		uint32_t sz = rd32(e + 4);
		size_t use = sz && sz <= attr_size - 16 ? sz : (size_t)attr_size - 16;
		int rc = sv_pdr_add_attr(r, e, use, (size_t)(aoff + o));
		if (rc)
			return rc;
		uint64_t ioff = rd64(e + attr_size - 16), isz = rd64(e + attr_size - 8);
		if (ioff > n || isz > n - ioff)
			return sv_pdr_fail(r, SV_EFORMAT, (size_t)(aoff + o), "id array of event %zu lies past the end of the file", r->nattrs - 1);
		if ((rc = sv_pdr_map_ids(r, r->nattrs - 1, d + ioff, (size_t)isz / 8)))
			return rc;
	}
	if (!r->nattrs)
		return sv_pdr_fail(r, SV_EFORMAT, 24, "no events in the attribute section");
	*data_off = (size_t)doff;
	if (dsz == 0 && n > doff) {
		/* perf was stopped before it rewrote the header: read to the end. */
		*data_end = n;
		r->truncated = true;
		snprintf(r->trunc_msg, sizeof(r->trunc_msg),
			 "the header gives no data size (perf stopped before finishing the file); read to the end");
		return 0;
	}
	if (dsz > n - doff) {
		r->truncated = true;
		snprintf(r->trunc_msg, sizeof(r->trunc_msg), "data section is %" PRIu64 " bytes but the file ends after %zu; read what is there",
			 dsz, n - (size_t)doff);
		*data_end = n;
		return 0;
	}
	*data_end = (size_t)(doff + dsz);
	/* Features: {offset, size} per set bit after the data section. */
	size_t fo = *data_end;
	for (unsigned bit = 1; bit < 256; bit++) {
		uint64_t word = rd64(d + 72 + 8 * (bit / 64));
		if (!(word >> (bit % 64) & 1))
			continue;
		if (fo + 16 > n)
			break;
		uint64_t off = rd64(d + fo), size = rd64(d + fo + 8);
		fo += 16;
		if (off > n || size > n - off)
			continue;
		int rc = sv_pdr_feature(r, bit, d + off, (size_t)size);
		if (rc)
			return rc;
	}
	return 0;
}

static bool tracepoint(const attr *a)
{
	return a->type == 2;
}

static int choose_event(pdr *r)
{
	for (size_t i = 0; i < r->nattrs; i++) {
		attr *a = &r->attrs[i];
		if (!a->name) {
			const char *b = sv_pdr_builtin_name(a->type, a->config);
			char buf[64];
			if (!b) {
				snprintf(buf, sizeof(buf), "%s%u:0x%" PRIx64, a->type == 2 ? "tracepoint" : "event", a->type, a->config);
				b = buf;
			}
			if (!(a->name = strdup(b)))
				return sv_pdr_oom(r);
		}
	}
	const char *want = r->opts->event;
	/* The sched tracepoints thread time reads, by name or by the id their format gave. */
	static const char *const tp_names[TP_KINDS] = { "sched:sched_switch", "sched:sched_wakeup",
							"sched:sched_wakeup_new", "sched:sched_waking" };
	for (int k = 0; k < TP_KINDS; k++)
		for (size_t i = 0; i < r->nattrs && r->tp_attr[k] < 0; i++)
			if (tracepoint(&r->attrs[i]) && r->attrs[i].samples && (r->attrs[i].sample_type & ST_RAW) &&
			    r->tp[k].id >= 0 && (!strcmp(r->attrs[i].name, tp_names[k]) || (long)r->attrs[i].config == r->tp[k].id))
				r->tp_attr[k] = (long)i;
	if (want && sv_tt_view_parse(want, &r->tt_view)) {
		if (r->tp_attr[TP_SWITCH] < 0)
			return sv_error_set(r->err, SV_EINVAL,
					    "event '%s' needs sched:sched_switch samples with their tracepoint format "
					    "(perf record -e sched:sched_switch -e sched:sched_wakeup -a -g ...)", want);
		r->tt_on = true;
		r->clock_event = true; /* intervals in ms */
		/* the CPU samples of a clock event slice the running time */
		want = NULL;
		for (size_t i = 0; i < r->nattrs && !want; i++)
			if (r->attrs[i].samples && r->attrs[i].type == 1 && r->attrs[i].config <= 1)
				want = r->attrs[i].name;
		for (size_t i = 0; want && i < r->nattrs; i++)
			r->attrs[i].selected = !strcmp(r->attrs[i].name, want) && r->attrs[i].samples;
		r->tt_clock = want != NULL;
		return 0;
	}
	if (!want) {
		for (int pass = 0; pass < 2 && !want; pass++)
			for (size_t i = 0; i < r->nattrs && !want; i++)
				if (r->attrs[i].samples && (pass || !tracepoint(&r->attrs[i])))
					want = r->attrs[i].name;
	}
	size_t hits = 0;
	for (size_t i = 0; want && i < r->nattrs; i++)
		if (!strcmp(r->attrs[i].name, want) && r->attrs[i].samples) {
			r->attrs[i].selected = true;
			r->clock_event = r->attrs[i].type == 1 && r->attrs[i].config <= 1;
			hits++;
		}
	if (r->opts->event && !hits) {
		char msg[400];
		size_t o = (size_t)snprintf(msg, sizeof(msg), "no samples of event '%s'; the file has:", r->opts->event);
		size_t listed = 0;
		for (size_t i = 0; i < r->nattrs && o < sizeof(msg) - 1; i++)
			if (r->attrs[i].samples)
				o += (size_t)snprintf(msg + o, sizeof(msg) - o, "%s %s", listed++ ? "," : "", r->attrs[i].name);
		if (!listed)
			snprintf(msg + o, sizeof(msg) - o, " no samples");
		return sv_error_set(r->err, SV_EINVAL, "%s", msg);
	}
	return 0;
}

static int finish(pdr *r)
{
	int rc = 0;
	/* The profiled programs' own files among those samples were symbolized in. */
	for (size_t i = 0; !rc && r->syms && i < sv_perf_dso_count(r->syms); i++) {
		const sv_perf_dso *d = sv_perf_dso_at(r->syms, i);
		if (d->tried && !d->kernel && !d->jit && sv_perf_program_file(d->path, strlen(d->path)) &&
		    r->sink->ops->add_user_module)
			rc = r->sink->ops->add_user_module(r->sink->self, d->module, strlen(d->module));
	}
	if (rc)
		return sv_pdr_oom(r);
	/* Events: one line per name with its samples. */
	for (size_t i = 0; !rc && i < r->nattrs; i++) {
		const attr *a = &r->attrs[i];
		if (!a->samples)
			continue;
		bool dup = false;
		for (size_t k = 0; k < i; k++)
			dup |= r->attrs[k].samples && !strcmp(r->attrs[k].name, a->name);
		if (dup)
			continue;
		size_t total = 0;
		for (size_t k = i; k < r->nattrs; k++)
			if (!strcmp(r->attrs[k].name, a->name))
				total += r->attrs[k].samples;
		if (r->sink->ops->add_event)
			rc = r->sink->ops->add_event(r->sink->self, a->name, total, a->selected && !r->tt_on);
	}
	/* What sched_switch makes possible: the thread-time views, each with the switches it
	 * comes from (what was loaded when chosen). */
	for (int v = 0; !rc && r->tp_attr[TP_SWITCH] >= 0 && r->sink->ops->add_event && v <= SV_TT_READY_TIME; v++) {
		bool on = r->tt_on && (int)r->tt_view == v;
		if (v == SV_TT_READIED_BY && r->tp_attr[TP_WAKEUP] < 0 && r->tp_attr[TP_WAKING] < 0)
			continue; /* no wake-ups, no wakers */
		rc = r->sink->ops->add_event(r->sink->self, sv_tt_view_name((sv_tt_view)v),
					     on ? r->kept : r->attrs[r->tp_attr[TP_SWITCH]].samples, on);
	}
	if (!rc && r->sink->ops->set_scaling)
		rc = r->sink->ops->set_scaling(r->sink->self, r->clock_event ? SV_SCALING_TIME : SV_SCALING_DATA);
	/* Process and Thread frames, named as perf names them; a process whose main thread took
	 * no sample is called as that thread was when the recording ended (after its last exec). */
	for (size_t i = 0; i < r->nthreads; i++) {
		const thread *t = &r->threads[i];
		if (t->pid == t->tid && t->comm != UINT32_MAX)
			sv_perf_names_main_comm(&r->names, t->pid, r->comm_names + t->comm, strlen(r->comm_names + t->comm));
	}
	if (!rc)
		rc = sv_perf_names_finish(&r->names, r->sink);
	if (rc)
		return sv_pdr_oom(r);

	/* What was found, for `info`. */
	rc = sv_sink_note(r->sink, SV_NOTE_INFO, "perf.data (%s mode)%s%s%s%s%s%s%s%s", r->pipe ? "pipe" : "file",
		  r->version ? ", perf " : "", r->version ? r->version : "", r->hostname ? ", host " : "",
		  r->hostname ? r->hostname : "", r->osrelease ? ", kernel " : "", r->osrelease ? r->osrelease : "",
		  r->arch ? " " : "", r->arch ? r->arch : "");
	if (!rc && r->cmdline)
		rc = sv_sink_note(r->sink, SV_NOTE_INFO, "command: %s", r->cmdline);
	if (!rc)
		rc = sv_sink_note(r->sink, SV_NOTE_INFO,
			  "records: %zu (%zu samples, %zu mmap, %zu mmap2, %zu comm, %zu fork, %zu exit)%s", r->records,
			  r->counts[R_SAMPLE], r->counts[R_MMAP], r->counts[R_MMAP2], r->counts[R_COMM], r->counts[R_FORK],
			  r->counts[R_EXIT], r->dlen ? "; zstd-compressed" : "");
	if (!rc && r->kallsyms_note[0])
		rc = sv_sink_note(r->sink, r->kallsyms_note[0] == 'n' ? SV_NOTE_WARNING : SV_NOTE_INFO, "%s", r->kallsyms_note);
	/* User-space files: how many had symbols. */
	size_t used = 0, found = 0, shown = 0;
	char missing[400] = "";
	size_t ml = 0;
	for (size_t i = 0; i < sv_perf_dso_count(r->syms); i++) {
		sv_perf_dso *d = sv_perf_dso_at(r->syms, i);
		if (!d->tried || d->jit || d->kernel || d->path[0] == '[')
			continue;
		used++;
		if (d->elf_path) {
			found++;
		} else if (shown < 4 && ml < sizeof(missing) - 1) {
			ml += (size_t)snprintf(missing + ml, sizeof(missing) - ml, "%s%s", shown++ ? ", " : "", d->path);
		}
	}
	if (!rc && used)
		rc = sv_sink_note(r->sink, found == used ? SV_NOTE_INFO : SV_NOTE_WARNING, "user symbols: %zu of %zu files found%s%s%s", found,
			  used, found < used ? " (not found: " : "", missing, found < used ? (used - found > shown ? ", …)" : ")") : "");
	size_t dasked, dfound;
	const char *dwhy;
	sv_perf_syms_debuginfod(r->syms, &dasked, &dfound, &dwhy);
	if (!rc && dasked)
		rc = sv_sink_note(r->sink, dfound < dasked ? SV_NOTE_WARNING : SV_NOTE_INFO,
				  "debuginfod: %zu of %zu files asked for by build id found%s%s%s", dfound, dasked,
				  *dwhy ? " (the last request " : "", dwhy, *dwhy ? ")" : "");
	if (!rc && (r->lost || r->lost_samples))
		rc = sv_sink_note(r->sink, SV_NOTE_WARNING, "perf lost %zu events and %zu samples while recording", r->lost, r->lost_samples);
	if (!rc && r->bad_samples)
		rc = sv_sink_note(r->sink, SV_NOTE_WARNING, "%zu malformed samples skipped; first: %s", r->bad_samples, r->first_bad);
	if (!rc && r->skipped)
		rc = sv_sink_note(r->sink, SV_NOTE_WARNING, "%zu records of unknown type skipped by their size (first: %s)", r->skipped,
			  r->first_skipped);
	if (!rc && r->unknown_id)
		rc = sv_sink_note(r->sink, SV_NOTE_WARNING, "%zu samples with an event id no attribute lists were skipped", r->unknown_id);
	if (!rc && r->truncated)
		rc = sv_sink_note(r->sink, SV_NOTE_WARNING, "%s", r->trunc_msg);
	if (!rc && r->tt) {
		const attr *sw = &r->attrs[r->tp_attr[TP_SWITCH]];
		size_t sampled = r->tt_sampled ? r->tt_sampled : (sw->flags & ATTR_FREQ) || sw->period > 1 ? sw->samples : 0;
		rc = sv_tt_report(r->tt, r->sink, sampled, r->lost);
	}
	return rc ? sv_pdr_oom(r) : 0;
}

/* The records' walk in time order: each record's type, misc, payload (n bytes) and byte
 * offset (of its compressed record when inflated). */
typedef int (*pd_record_fn)(pdr *r, void *x, uint32_t type, uint16_t misc, const unsigned char *p, size_t n,
			    size_t off);

/* Read the header, index every record (features, attributes, tracing data on the way),
 * choose the event and sort the records by time. pd_close frees what it made, whatever it
 * returned. */
static int pd_open(pdr *r, sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	static const sv_import_opts none = { 0 };
	r->sink = sink;
	r->in = in;
	r->opts = opts ? opts : &none;
	r->err = err;
	r->d = in->data;
	r->n = in->len;
	r->kmaps.refs = 1;
	uint64_t lim = (uint64_t)in->len * SV_MAX_ZIP_RATIO;
	r->dlimit = lim < SV_MAX_INPUT_BYTES ? lim : SV_MAX_INPUT_BYTES;
	sv_idmap_init(&r->id_attr);
	sv_idmap_init(&r->proc_idx);
	sv_idmap_init(&r->thread_idx);
	sv_perf_names_init(&r->names);
	sv_idmap_init(&r->inl_idx);
	sv_idmap_init(&r->addr_fids);
	for (int k = 0; k < TP_KINDS; k++)
		r->tp[k].id = r->tp_attr[k] = -1;
	sv_cpu_root_init(&r->cpu_roots);
	sv_net_init(&r->net, r->opts);
	sv_perf_sym_opts so = { r->opts->kallsyms, r->opts->debug_dirs, r->opts->perf_map_dir, r->opts->symfs,
				r->opts->debuginfod, &r->net };
	int rc = sv_perf_syms_new(&r->syms, &so);
	if (rc)
		return sv_pdr_oom(r);
	if ((rc = read_file_header(r, &r->data_off, &r->data_end)))
		return rc;
	size_t doff = r->data_off, dend = r->data_end, stop = 0;
	/* the index's room at once for records of 64 bytes on average (a frame-pointer sample is
	 * 80-100), so that it does not grow by copying; what is not used is never touched (on
	 * huge pages: a fault per 2 MiB instead of per 4 KiB, at most 2 MiB touched past the
	 * end). A hint: without that room the index grows as it goes. */
	if (dend > doff && !SV_ARRAY_RESERVE(r->recs, r->rcap, (dend - doff) / 64 + 16))
		sv_advise_huge(r->recs, r->rcap * sizeof(*r->recs));
	if ((rc = sv_pdr_index_buffer(r, r->d, doff, dend, false, &stop)))
		return rc;
	r->data_stop = stop;
	if (stop < dend && !r->truncated) {
		r->truncated = true;
		snprintf(r->trunc_msg, sizeof(r->trunc_msg), "the data ends inside a record at byte offset %zu; %zu bytes ignored", stop,
			 dend - stop);
	}
	if (r->dlen && !r->truncated) {
		r->truncated = true;
		snprintf(r->trunc_msg, sizeof(r->trunc_msg), "compressed records end inside a record; %zu inflated bytes ignored",
			 r->dlen);
	}
	if (!r->nattrs)
		return sv_pdr_fail(r, SV_EFORMAT, doff, "no event attributes before the records%s%s%s", r->truncated ? " (" : "",
				   r->truncated ? r->trunc_msg : "", r->truncated ? ")" : "");
	if ((rc = choose_event(r)))
		return rc;
	rec *tmp = NULL;
	if (r->nrecs && !(tmp = sv_malloc_big(r->nrecs * sizeof(*tmp))))
		return sv_pdr_oom(r);
	rc = sv_pdr_sort_recs(r->recs, r->nrecs, tmp);
	free(tmp);
	return rc ? sv_pdr_oom(r) : 0;
}

/* The second pass: the records in time order to fn, letting go of what is behind it:
 * low[b] is the least file offset and the least inflated offset of the records from block
 * b of 64 on, so the input is never held whole (a mapped file's pages go back to the
 * kernel, the inflated stream is inflated again as it is needed). Per block, not per record:
 * a bound a little low keeps a little more, and the marks take an entry per 64 records
 * instead of a second index. */
static int pd_walk(pdr *r, pd_record_fn fn, void *x)
{
	struct low_mark { uint64_t file, inflated; } *low;
	size_t nblocks = (r->nrecs + 63) / 64;
	if (!(low = malloc((nblocks ? nblocks : 1) * sizeof(*low))))
		return sv_pdr_oom(r);
	uint64_t fmin = UINT64_MAX, dmin = UINT64_MAX;
	for (size_t i = r->nrecs; i-- > 0;) {
		uint64_t loc = r->recs[i].loc;
		if (loc & LOC_DECOMP)
			dmin = (loc & ~LOC_DECOMP) < dmin ? loc & ~LOC_DECOMP : dmin;
		else
			fmin = loc < fmin ? loc : fmin;
		if (i % 64 == 0)
			low[i / 64] = (struct low_mark){ fmin, dmin };
	}
	bool inflating = r->dbase + r->dlen > 0;
	sv_pdr_rewind(r, inflating ? r->data_off : r->data_stop, r->data_stop);
	int rc = 0;
	for (size_t i = 0; i < r->nrecs; i++) {
		uint64_t loc = r->recs[i].loc;
		/* records are read in time order, not file order (each CPU's buffers in turn): a
		 * record a few ahead asked for, its header and callchain */
		if (i + 8 < r->nrecs && !(r->recs[i + 8].loc & LOC_DECOMP)) {
			const unsigned char *a = r->d + r->recs[i + 8].loc;
			__builtin_prefetch(a);
			__builtin_prefetch(a + 64);
		}
		const unsigned char *h;
		size_t off = (size_t)loc;
		if (loc & LOC_DECOMP) {
			uint64_t at = loc & ~LOC_DECOMP;
			uint16_t hsize;
			if ((rc = sv_pdr_inflated(r, at, 8, low[i / 64].inflated, &h)))
				break;
			memcpy(&hsize, h + 6, 2);
			if ((rc = sv_pdr_inflated(r, at, hsize, low[i / 64].inflated, &h)))
				break;
			off = r->comp_off;
		} else {
			h = r->d + loc;
		}
		if (i % 64 == 0)
			sv_pdr_release(r, low[i / 64].file < r->zpos ? (size_t)low[i / 64].file : r->zpos);
		uint32_t type = rd32(h);
		uint16_t misc, size;
		memcpy(&misc, h + 4, 2);
		memcpy(&size, h + 6, 2);
		/* Symbols and unwinding make this pass the slow one: its share of records is
		 * the progress reported. */
		if ((rc = sv_input_progress(r->in, (unsigned long long)((double)i / (double)r->nrecs * (double)r->in->len), r->err)))
			break;
		if ((rc = fn(r, x, type, misc, h + 8, size - 8u, off)))
			break;
		if (r->net.stopped) { /* Ctrl-C while debuginfod was asked: the load ends too */
			rc = sv_error_set(r->err, SV_ECANCELED, "loading canceled (while asking debuginfod)");
			sv_error_locate(r->err, r->in->name, -1, -1);
			break;
		}
	}
	free(low);
	return rc;
}

static void pd_close(pdr *r)
{
	for (size_t i = 0; i < r->nattrs; i++)
		free(r->attrs[i].name);
	free(r->attrs);
	free(r->recs);
	free(r->dbuf);
	ZSTD_freeDStream(r->zs);
	free(r->hostname);
	free(r->osrelease);
	free(r->version);
	free(r->arch);
	free(r->cmdline);
	free(r->tracing);
	sv_perf_syms_free(r->syms);
	free(r->kfids);
	free(r->kcache);
	free(r->ucache);
	free(r->kmaps.v);
	for (size_t i = 0; i < r->nprocs; i++) {
		sv_perf_unwinder_free(r->procs[i].uw);
		sv_pdr_maps_unref(r->procs[i].m);
	}
	free(r->procs);
	for (size_t i = 0; i < r->nthreads; i++)
		free(r->threads[i].path);
	free(r->threads);
	free(r->comm_names);
	free(r->chain);
	free(r->locs);
	free(r->fids);
	free(r->name);
	sv_idmap_dispose(&r->id_attr);
	sv_idmap_dispose(&r->proc_idx);
	sv_idmap_dispose(&r->thread_idx);
	sv_perf_names_dispose(&r->names);
	sv_idmap_dispose(&r->inl_idx);
	sv_idmap_dispose(&r->addr_fids);
	sv_tt_free(r->tt);
	sv_cpu_root_dispose(&r->cpu_roots);
	free(r->inl);
	free(r->inl_fids);
}

static int import_record(pdr *r, void *x, uint32_t type, uint16_t misc, const unsigned char *p, size_t n, size_t off)
{
	(void)x;
	return type == R_SAMPLE ? sv_pdr_sample(r, p, n, misc, off) : sv_pdr_apply(r, type, misc, p, n);
}

static int pd_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	pdr r;
	memset(&r, 0, sizeof(r));
	int rc = pd_open(&r, sink, in, opts, err);
	if (!rc && sink->ops->reserve_samples) { /* the chosen event's samples, counted by the index */
		size_t n = 0;
		for (size_t i = 0; i < r.nattrs; i++)
			n += r.attrs[i].selected ? r.attrs[i].samples : 0;
		if (sink->ops->reserve_samples(sink->self, n))
			rc = sv_pdr_oom(&r);
		/* and room for twice as many stacks (a recording of many short-lived programs
		 * makes more stacks than samples: the gcc build 1.43 a sample), so that the stack
		 * tables are not copied as they grow; what is not used is never written (its
		 * addresses are all it costs). A hint: without the room, they grow. */
		if (!rc && sink->ops->reserve_stacks && n <= SIZE_MAX / 2 - 1024)
			(void)sink->ops->reserve_stacks(sink->self, 2 * n + 1024);
	}
	/* a clock event's periods are whole ns, its metric ms: sums kept in ns are exact */
	if (!rc && r.clock_event && !r.tt_on && sink->ops->set_metric_quantum)
		sink->ops->set_metric_quantum(sink->self, 1e-6);
	if (!rc && !(rc = pd_walk(&r, import_record, NULL)))
		rc = finish(&r);
	pd_close(&r);
	return rc;
}

/* The Events view's listing: every sample in time order (data_events.c). */
static int pd_list_events(const sv_input *in, const sv_import_opts *opts, const sv_event_lister *l, sv_error *err)
{
	pdr r;
	memset(&r, 0, sizeof(r));
	r.keep_tracing = true;
	sv_pdr_lister *x = NULL;
	int rc = pd_open(&r, NULL, in, opts, err);
	if (!rc && !(rc = sv_pdr_lister_new(&x, &r, l)) && !(rc = pd_walk(&r, sv_pdr_lister_record, x)))
		rc = sv_pdr_lister_end(x, &r);
	sv_pdr_lister_free(x);
	pd_close(&r);
	return rc;
}

static bool pd_probe(const unsigned char *d, size_t n)
{
	return n >= 8 && (memcmp(d, "PERFILE2", 8) == 0 || memcmp(d, "2ELIFREP", 8) == 0 || memcmp(d, "PERFFILE", 8) == 0);
}

static const char *const pd_patterns[] = { "perf.data", ".data", NULL };

const sv_format sv_fmt_perf_data = {
	.name = "perf-data", .patterns = pd_patterns, .probe = pd_probe, .import = pd_import,
	.defaults = &sv_perf_defaults, .list_events = pd_list_events,
};
