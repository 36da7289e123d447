/* SPDX-License-Identifier: MIT */
/* Windows ETL importer: CPU samples with stacks from `.etl` and PerfView's `.etl.zip`
 * (spec/etl.md). The file is a run of buffers (Xpress-compressed in merged traces); the
 * buffers of each CPU are ordered by sequence number and the CPUs merged by timestamp, so
 * events arrive in time order. One pass collects samples, stack fragments (plain StackWalk
 * events and the stack-key references and definitions of stack caching), processes,
 * threads, images and CLR methods; a second pass, over the kept samples, stitches kernel and
 * user halves, back-fills thread -> process, names frames `module!?` or after CLR methods,
 * and pushes memoized stacks into the sink (semantics §1.3/§1.4 frame names).
 *
 * Everything read from the file is bounds-checked; sizes taken from the file never drive an
 * allocation beyond the documented limits (a buffer decompresses to at most 64 MiB). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl_int.h"
#include "stackview/symbols.h"
#include "sv/thread_time.h"
#include "stackview/formats.h"
#include "sv/idmap.h"

static void ctx_dispose(etl_ctx *c)
{
	free(c->list_buf);
	free(c->bufs);
	free(c->streams);
	free(c->heap);
	free(c->addrs);
	free(c->as_start);
	free(c->as_len);
	free(c->as_next);
	sv_idmap_dispose(&c->as_index);
	free(c->samples);
	free(c->cpu_cur);
	for (size_t i = 0; i < c->nrsds; i++)
		free(c->rsds[i].name);
	free(c->rsds);
	sv_idmap_dispose(&c->rsds_by_key);
	sv_idmap_dispose(&c->imageid_by_key);
	sv_idmap_dispose(&c->unnamed_mods);
	for (size_t i = 0; i < c->nsymfiles; i++) {
		free(c->symfiles[i].name);
		free(c->symfiles[i].path);
		sv_symtab_free(c->symfiles[i].t);
	}
	free(c->symfiles);
	for (size_t i = 0; i < c->nfailed; i++)
		free(c->failed[i]);
	free(c->failed);
	for (size_t i = 0; i < c->nnoid; i++)
		free(c->noid[i]);
	free(c->noid);
	for (size_t i = 0; i < c->nleaves; i++)
		free(c->leaves[i]);
	free(c->leaves);
	sv_idmap_dispose(&c->leaf_index);
	sv_idmap_dispose(&c->clr_last);
	for (size_t i = 0; i < c->nfnames; i++)
		free(c->fnames[i]);
	free(c->fnames);
	sv_idmap_dispose(&c->fname_index);
	for (size_t i = 0; i < c->ntnames; i++)
		free(c->tnames[i]);
	free(c->tnames);
	sv_idmap_dispose(&c->tname_index);
	sv_idmap_dispose(&c->stacked);
	sv_idmap_dispose(&c->clr_prev);
	free(c->clr_ts);
	sv_idmap_dispose(&c->by_ts);
	sv_idmap_dispose(&c->pend);
	sv_idmap_dispose(&c->kwait);
	sv_idmap_dispose(&c->uwait);
	for (size_t i = 0; i < c->nprocs; i++) {
		free(c->procs[i].image);
		free(c->procs[i].cmdline);
	}
	free(c->procs);
	free(c->proc_memo);
	free(c->thread_memo);
	sv_idmap_dispose(&c->proc_by_pid);
	free(c->threads);
	sv_idmap_dispose(&c->thread_by_tid);
	for (size_t i = 0; i < c->nimages; i++)
		free(c->images[i].path);
	free(c->images);
	sv_idmap_dispose(&c->image_by_key);
	for (size_t i = 0; i < c->nmethods; i++)
		free(c->methods[i].name);
	free(c->methods);
	for (size_t i = 0; i < c->nmodules; i++)
		free(c->modules[i].path);
	free(c->modules);
	sv_idmap_dispose(&c->module_by_key);
	for (size_t i = 0; i < c->nvols; i++) {
		free(c->vols[i].nt);
		free(c->vols[i].dos);
	}
	free(c->vols);
	for (size_t i = 0; i < c->nkinds; i++) {
		free(c->kinds[i].name);
		free(c->kinds[i].id_name);
	}
	free(c->kinds);
	sv_idmap_dispose(&c->kind_index);
	for (size_t i = 0; i < c->nmetas; i++)
		free(c->metas[i].name);
	free(c->metas);
	sv_etl_manifest_free_all(c);
	free(c->man_buf);
	sv_idmap_dispose(&c->disk_init);
	sv_idmap_dispose(&c->heap_index);
	free(c->heap_blocks);
	free(c->heap_free_slots);
	sv_idmap_dispose(&c->meta_index);
}

/* The program's modules (PerfView's Just My App): for each process with kept samples whose
 * program is outside the Windows directory, the images loaded from its program's directory,
 * by the names frames give them (the file name without extension). */
static int user_modules(etl_ctx *c)
{
	if (!c->sink->ops->add_user_module)
		return 0;
	int rc = 0;
	for (size_t i = 0; i < c->nprocs && !rc; i++) {
		const eproc *p = &c->procs[i];
		if (!p->image || !p->image[0] || p->pid == 0 || p->pid == 4)
			continue;
		/* the program's path: an image of this process named as its program */
		const char *dir = NULL;
		size_t dl = 0;
		for (size_t k = 0; k < c->nimages; k++) {
			const eimage *im = &c->images[k];
			if (im->pid != p->pid)
				continue;
			const char *b = strrchr(im->path, '\\');
			b = b ? b + 1 : im->path;
			if (strcasecmp(b, p->image) == 0) {
				dir = im->path, dl = (size_t)(b - im->path);
				break;
			}
		}
		if (!dir || !dl)
			continue;
		char d[1024];
		snprintf(d, sizeof(d), "%.*s", (int)dl, dir);
		if (strcasestr(d, "\\Windows\\")) /* a system program */
			continue;
		for (size_t k = 0; k < c->nimages && !rc; k++) {
			const eimage *im = &c->images[k];
			if (im->pid != p->pid || strlen(im->path) <= dl || strncasecmp(im->path, d, dl) != 0 ||
			    strchr(im->path + dl, '\\'))
				continue;
			const char *b = im->path + dl, *dot = strrchr(b, '.');
			rc = c->sink->ops->add_user_module(c->sink->self, b, dot && dot != b ? (size_t)(dot - b) : strlen(b));
		}
	}
	return rc;
}

static int etl_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	etl_ctx c;
	memset(&c, 0, sizeof(c));
	/* --event: the CPU samples unless another event kind is named; the thread-time views
	 * read CSwitch and ReadyThread beside the CPU samples */
	sv_tt_view ttv;
	c.tt_on = opts && sv_tt_view_parse(opts->event, &ttv);
	c.tt_view = c.tt_on ? (int)ttv : 0;
	c.by_cpu = opts && opts->by_cpu;
	c.code_paths = opts && opts->code_paths;
	c.no_code = opts && opts->no_code;
	c.code_notes = opts && opts->code_notes;
	c.symbol_path = opts && opts->symbol_path && *opts->symbol_path ? opts->symbol_path : NULL;
	c.offline = opts && opts->offline;
	c.symbol_modules = opts && opts->symbol_modules && *opts->symbol_modules ? opts->symbol_modules : NULL;
	sv_net_init(&c.net, opts);
	sv_idmap_init(&c.rsds_by_key);
	sv_idmap_init(&c.imageid_by_key);
	sv_idmap_init(&c.unnamed_mods);
	c.want = opts && opts->event && !c.tt_on && strcmp(opts->event, "Windows Kernel/PerfInfo/Sample") ? opts->event : NULL;
	c.want_kind = -1;
	c.view = -1;
	for (int v = 0; c.want && v < V_COUNT; v++)
		if (strcmp(c.want, sv_etl_views[v].name) == 0)
			c.view = v;
	c.want_disk = c.want && (strcmp(c.want, "Windows Kernel/DiskIO/Read") == 0 || strcmp(c.want, "Windows Kernel/DiskIO/Write") == 0 ||
				 c.view == V_DISK_TIME);
	c.want_heap = c.want && (c.view == V_NET_HEAP || strcmp(c.want, "Windows Kernel/Heap/Alloc") == 0 ||
				 strcmp(c.want, "Windows Kernel/Heap/ReAlloc") == 0 || strcmp(c.want, "Windows Kernel/Heap/Free") == 0);
	sv_idmap_init(&c.heap_index);
	sv_idmap_init(&c.disk_init);
	sv_idmap_init(&c.leaf_index);
	sv_idmap_init(&c.clr_last);
	sv_idmap_init(&c.fname_index);
	sv_idmap_init(&c.tname_index);
	c.sink = sink;
	c.in = in;
	c.err = err;
	c.file = in->data;
	c.flen = in->len;
	sv_idmap_init(&c.as_index);
	sv_idmap_init(&c.by_ts);
	sv_idmap_init(&c.pend);
	sv_idmap_init(&c.kwait);
	sv_idmap_init(&c.uwait);
	sv_idmap_init(&c.proc_by_pid);
	sv_idmap_init(&c.thread_by_tid);
	sv_idmap_init(&c.kind_index);
	sv_idmap_init(&c.meta_index);
	sv_idmap_init(&c.image_by_key);
	sv_idmap_init(&c.module_by_key);
	size_t with_stack = 0, jit_leaf = 0, broken = 0;
	int rc = sv_etl_read_header(&c);
	if (!rc)
		rc = sv_etl_walk_buffers(&c);
	size_t nbufs = c.nbufs;
	if (!rc)
		rc = sv_etl_read_events(&c);
	if (!rc)
		rc = sv_etl_name_late_kinds(&c);
	if (!rc && !c.want && !c.tt_on && !c.raw_samples && c.nkinds && !(opts && opts->no_default_kind)) {
		/* No CPU samples (a GC or provider trace): the trace is read again for the kind a
		 * user would look at first, the CLR's allocation ticks where it has them, else the
		 * provider kind (then the kernel kind) with the most events, and the notes say so. */
		const char *pick = NULL;
		size_t most = 0;
		bool pick_kernel = true; /* a provider's own events before the kernel's configuration ones */
		for (size_t i = 0; i < c.nkinds; i++) {
			const char *n = c.kinds[i].name;
			bool kernel = strncmp(n, "Windows Kernel/", 15) == 0;
			if (strcmp(n, "Microsoft-Windows-DotNETRuntime/GC/AllocationTick") == 0) {
				pick = n;
				break;
			}
			if (strncmp(n, "Windows Kernel/EventTrace", 25) != 0 &&
			    ((pick_kernel && !kernel) || (kernel == pick_kernel && c.kinds[i].count > most)))
				pick = n, most = c.kinds[i].count, pick_kernel = kernel;
		}
		if (pick) {
			char name[512];
			snprintf(name, sizeof(name), "%s", pick);
			size_t kinds = c.nkinds;
			ctx_dispose(&c);
			sv_import_opts again = opts ? *opts : (sv_import_opts){ 0 };
			again.event = name;
			again.no_default_kind = true;
			rc = etl_import(sink, in, &again, err);
			if (!rc)
				rc = sv_sink_note(sink, SV_NOTE_WARNING,
						  "no CPU samples in the trace: showing '%s'; --event (v in the terminal UI) picks another "
						  "of its %zu event kinds (info lists them)",
						  name, kinds);
			return rc;
		}
	}
	if (!rc && c.tt_on && !c.cswitches)
		rc = sv_error_set(err, SV_EINVAL,
				  "event '%s' needs CSwitch events with stacks (xperf -on PROC_THREAD+LOADER+PROFILE+CSWITCH+DISPATCHER "
				  "-stackwalk Profile+CSwitch+ReadyThread, or PerfView /ThreadTime)", opts->event);
	c.cpu_kept = c.nsamples - c.cswitches - c.readies;
	if (!rc && sink->ops->set_scaling) /* events other than CPU samples are instants */
		rc = sink->ops->set_scaling(sink->self, !c.want ? SV_SCALING_TIME : SV_SCALING_DATA);
	if (!rc && c.want && sink->ops->set_unit)
		rc = sink->ops->set_unit(sink->self, c.view == V_DISK_TIME ? "ms" : c.want_bytes ? "bytes" : "events");
	if (!rc)
		rc = sv_etl_emit_samples(&c, &with_stack, &jit_leaf, &broken);
	if (!rc)
		rc = user_modules(&c);
	if (rc == SV_ENOMEM)
		sv_error_set(err, SV_ENOMEM, NULL);
	size_t cswitch = 0, in_view[V_COUNT] = { 0 };
	bool ready = false;
	for (size_t i = 0; !rc && i < c.nkinds; i++) {
		bool sample = c.kinds[i].key == (1ULL << 63 | 0x0F00 | 46);
		bool shown = !c.want && !c.tt_on ? sample : (long)i == c.want_kind;
		if (c.kinds[i].key == (1ULL << 63 | 0x0500 | 36))
			cswitch = c.kinds[i].count;
		ready |= c.kinds[i].key == (1ULL << 63 | 0x0500 | 50);
		for (int v = 0; v < V_COUNT; v++) {
			uint64_t key = c.kinds[i].key;
			if (key >> 63 && sv_etl_view_has(&sv_etl_views[v], (int)(key >> 8 & 0xFF), (int)(key & 0xFF)))
				in_view[v] += c.kinds[i].count;
		}
		if (sink->ops->add_event)
			rc = sink->ops->add_event(sink->self, c.kinds[i].name, sample && !c.want ? c.cpu_kept : c.kinds[i].count,
						  shown);
	}
	for (int v = 0; !rc && v < V_COUNT && sink->ops->add_event; v++)
		if (in_view[v])
			rc = sink->ops->add_event(sink->self, sv_etl_views[v].name, in_view[v], c.view == v);
	if (!rc && c.view >= 0 && !in_view[c.view])
		rc = sv_error_set(err, SV_EINVAL, "event '%s' needs %s", sv_etl_views[c.view].name, sv_etl_views[c.view].needs);
	/* what CSwitch events make possible: the thread-time views (PerfView's Thread Time) */
	for (int v = 0; !rc && cswitch && sink->ops->add_event && v <= SV_TT_READY_TIME; v++)
		if (v != SV_TT_READIED_BY || ready)
			rc = sink->ops->add_event(sink->self, sv_tt_view_name((sv_tt_view)v), cswitch, c.tt_on && c.tt_view == v);
	/* --event names an event kind of the trace (any kind is a stack source). */
	for (size_t k = 0; !rc && c.want && c.want_kind < 0 && k < c.nkinds; k++)
		if (c.kinds[k].id_name && strcmp(c.kinds[k].name, c.want) == 0)
			rc = sv_error_set(err, SV_EINVAL, "event '%s' is named by metadata logged after its first events; open it as '%s'",
					  c.want, c.kinds[k].id_name);
	if (!rc && opts && opts->event && c.want && c.want_kind < 0 && c.view < 0) {
		char msg[1024];
		size_t o = (size_t)snprintf(msg, sizeof(msg), "no event '%s' in the trace; it has:", opts->event);
		for (size_t k = 0; k < c.nkinds && o < sizeof(msg); k++)
			o += (size_t)snprintf(msg + o, sizeof(msg) - o, "%s %s", k ? "," : "", c.kinds[k].name);
		rc = sv_error_set(err, SV_EINVAL, "%s", msg);
	}
	/* the trace first, then what was made of it */
	if (!rc)
		rc = sv_sink_note(c.sink, SV_NOTE_INFO,
			  "Windows %u.%u build %u, %u CPUs, %u-bit pointers, clock %.0f Hz; %zu buffers (%zu compressed), "
			  "%zu events in %zu bytes",
			  c.os_major, c.os_minor, c.build, c.ncpus, c.ptr * 8, c.freq, nbufs, c.ncompressed, c.records,
			  c.event_bytes);
	if (!rc && c.want_disk)
		rc = sv_sink_note(c.sink, SV_NOTE_INFO, "%s: %zu of %zu I/Os with the stack of their Init event (ReadInit/WriteInit, by Irp)",
			  c.want, c.disk_inits, c.events_kept);
	if (!rc && c.want_heap && c.heap_unmatched)
		rc = sv_sink_note(c.sink, SV_NOTE_INFO, "%s: %zu frees or reallocations of blocks allocated before the trace began "
			  "left out (their size is not known)", c.want, c.heap_unmatched);
	if (!rc && c.want)
		rc = sv_sink_note(c.sink, SV_NOTE_INFO, "%s: %zu events as samples (%zu with the CLR's stack), %s", c.want, c.events_kept,
			  c.clr_stacks,
			  c.want_bytes ? "each weighing its bytes (docs/etl-events.md), with its stack where the trace has one"
				       : "each counting 1, with its stack where the trace has one");
	if (!rc && !c.want)
		rc = sv_sink_note(c.sink, SV_NOTE_INFO,
			  "CPU samples: %zu in the trace, %zu idle dropped, %zu kept (%zu with a stack, %zu under BROKEN), interval %.4g ms",
			  c.raw_samples, c.idle_samples, c.cpu_kept, with_stack, broken,
			  c.interval ? (double)c.interval / 1e4 : 1.0);
	if (!rc)
		rc = sv_sink_note(c.sink, SV_NOTE_INFO,
			  "stacks: %zu StackWalk events, %zu stack-key references, %zu key definitions; %zu processes, %zu images, "
			  "%zu CLR methods (%zu samples in JIT code named)",
			  c.stacks32, c.keyrefs, c.keydefs, c.nprocs, c.nimages, c.nmethods, jit_leaf);
	size_t first = 0;
	while (first < c.nsamples && c.samples[first].ekind == ES_CARRIER)
		first++;
	if (!rc && first < c.nsamples) {
		const esample *f = &c.samples[first];
		rc = sv_sink_note(c.sink, SV_NOTE_INFO, "first kept sample: %.3f ms, pid %" PRId64 ", tid %" PRIu32 ", CPU %u, IP 0x%" PRIx64,
			  f->ts >= c.hdr_ts ? (double)(f->ts - c.hdr_ts) * 1000.0 / c.freq : 0.0, c.first_pid == UINT32_MAX ? (int64_t)-1 : (int64_t)c.first_pid,
			  f->tid, f->cpu, f->ip);
	}
	if (!rc && c.no_code && c.code_notes)
		rc = sv_etl_code_notes(&c);
	if (!rc)
		rc = sv_etl_symbols_notes(&c);
	const char *in_entry = in->inner ? "in " : "", *entry = in->inner ? in->inner : "", *sep = in->inner ? ": " : "";
	for (int w = 0; !rc && w < W_COUNT; w++)
		if (c.warns[w].count)
			rc = c.warns[w].count == 1
				     ? sv_sink_note(c.sink, SV_NOTE_WARNING, "%s%s%s%s", in_entry, entry, sep, c.warns[w].first)
				     : sv_sink_note(c.sink, SV_NOTE_WARNING, "%s%s%s%s (and %zu more like it)", in_entry, entry, sep,
					    c.warns[w].first, c.warns[w].count - 1);
	ctx_dispose(&c);
	return rc;
}

/* The Events view's listing: the trace read once as an import reads it (no samples kept),
 * then again with each record handed to fn. */
/* A listing reads the trace twice: first for the processes, threads, event kinds and the
 * metadata that name what the events hold (some come late in the trace), then the events
 * themselves, each named with all of it. */
static int list_first(etl_ctx *c, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	sv_idmap *maps[] = { &c->rsds_by_key, &c->imageid_by_key, &c->heap_index, &c->disk_init, &c->leaf_index,
			     &c->clr_last, &c->fname_index, &c->as_index, &c->by_ts, &c->pend, &c->kwait, &c->uwait,
			     &c->proc_by_pid, &c->thread_by_tid, &c->kind_index, &c->meta_index, &c->image_by_key,
			     &c->module_by_key, &c->unnamed_mods, &c->tname_index, &c->stacked, &c->clr_prev };
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		sv_idmap_init(maps[i]);
	(void)opts;
	c->want = "\x01 events"; /* a kind no trace has: no samples are kept */
	c->want_kind = -1;
	c->view = -1;
	c->offline = true;
	c->in = in;
	c->err = err;
	c->file = in->data;
	c->flen = in->len;
	c->listing = true;
	int rc = sv_etl_read_header(c);
	if (!rc)
		rc = sv_etl_walk_buffers(c);
	if (!rc)
		rc = sv_etl_read_events(c);
	if (!rc)
		rc = sv_etl_name_late_kinds(c);
	free(c->streams);
	free(c->heap);
	c->streams = NULL, c->heap = NULL, c->nstreams = c->nheap = 0;
	memset(c->warns, 0, sizeof(c->warns)); /* the second pass meets the same damage */
	if (rc == SV_ENOMEM)
		sv_error_set(err, SV_ENOMEM, NULL);
	return rc;
}

static int list_second(etl_ctx *c, const sv_input *in, const sv_event_lister *l, sv_error *err)
{
	c->in = in;
	c->err = err;
	c->file = in->data;
	c->flen = in->len;
	c->list_fn = l->event, c->list_payload = l->payload;
	c->list_buf = sv_etl_list_buf_new();
	int rc = c->list_buf ? sv_etl_read_events(c) : SV_ENOMEM;
	for (int w = 0; !rc && l->warning && w < W_COUNT; w++) {
		char line[400];
		if (!c->warns[w].count)
			continue;
		if (c->warns[w].count == 1)
			snprintf(line, sizeof(line), "%s", c->warns[w].first);
		else
			snprintf(line, sizeof(line), "%s (and %zu more like it)", c->warns[w].first, c->warns[w].count - 1);
		l->warning(l->payload, line);
	}
	if (rc == SV_ENOMEM)
		sv_error_set(err, SV_ENOMEM, NULL);
	return rc;
}

static int etl_list_events(const sv_input *in, const sv_import_opts *opts, const sv_event_lister *l, sv_error *err)
{
	etl_ctx c;
	memset(&c, 0, sizeof(c));
	int rc = list_first(&c, in, opts, err);
	if (!rc)
		rc = list_second(&c, in, l, err);
	ctx_dispose(&c);
	return rc;
}

/* The first pass done ahead (the input is closed after it: the context keeps no pointer
 * into it but the buffers' places, the same in the file read again). */
static int etl_list_prepare(const sv_input *in, const sv_import_opts *opts, void **state, sv_error *err)
{
	etl_ctx *c = calloc(1, sizeof(*c));
	if (!c)
		return sv_error_set(err, SV_ENOMEM, NULL);
	int rc = list_first(c, in, opts, err);
	c->in = NULL, c->file = NULL, c->err = NULL;
	if (rc) {
		ctx_dispose(c);
		free(c);
		return rc;
	}
	*state = c;
	return 0;
}

static void etl_list_state_free(void *state)
{
	if (state)
		ctx_dispose(state);
	free(state);
}

static int etl_list_prepared(const sv_input *in, void *state, const sv_import_opts *opts, const sv_event_lister *l,
			     sv_error *err)
{
	(void)opts;
	int rc = list_second(state, in, l, err);
	etl_list_state_free(state);
	return rc;
}

/* A trace header event at the start of the first buffer (etl.md §5). */
static bool etl_probe(const unsigned char *d, size_t len)
{
	if (len < BUF_HDR + 32)
		return false;
	const unsigned char *r = d + BUF_HDR;
	return r[3] == 0xC0 && (r[2] == 1 || r[2] == 2) && rd16(r + 6) == 0 && rd32(d) >= BUF_HDR + 32 &&
	       rd32(d + 0x30) >= BUF_HDR + 32;
}

static const char *const etl_patterns[] = { ".etl", NULL };
/* PerfView's defaults for CPU stacks of whole systems (semantics §11.2). */
static const sv_format_defaults etl_defaults = {
	.group = "[group module entries]  {%}!=>module $1",
	.fold = "ntoskrnl!%ServiceCopyEnd",
	.pick_process = true,
};
const sv_format sv_fmt_etl = {
	.name = "etl", .patterns = etl_patterns, .probe = etl_probe, .import = etl_import, .defaults = &etl_defaults,
	.list_events = etl_list_events,
	.list_prepare = etl_list_prepare,
	.list_prepared = etl_list_prepared,
	.list_state_free = etl_list_state_free,
};
