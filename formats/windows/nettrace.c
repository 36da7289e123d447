/* SPDX-License-Identifier: MIT */
/* .NET EventPipe traces (.nettrace: dotnet-trace, DiagnosticsClient, DOTNET_EnableEventPipe),
 * file format versions 4 and 5: the driver and the format's table entry (nettrace_int.h names
 * the files of the rest). No Debian library reads them: hand-written, every length,
 * count and offset checked (docs/nettrace.md has the layouts).
 *
 * The file: "Nettrace", the FastSerialization header, the Trace object (clock, pointer size,
 * process id), then one object per block: MetadataBlock (event kinds: provider, event id,
 * name), StackBlock (stacks by id, instruction pointers leaf first), EventBlock (events with
 * compressed or plain headers naming a kind, a thread and a stack), SPBlock (sequence points),
 * and a NullReference tag at the end. A trace cut short keeps what came before the cut, with
 * a warning; a structure that does not read is an error naming its byte offset.
 *
 * Views: `thread-time` (the default when the runtime's sample profiler ran: PerfView's
 * EventPipe thread time — each sample holds its thread's stack until that thread's next
 * sample, under CPU_TIME when it ran managed code and UNMANAGED_CODE_TIME otherwise), and
 * any event kind (one sample per event, weighing 1, with its stack). Managed frames are named
 * from the runtime's method and module events (MethodLoadVerbose, rundown MethodDCStart/
 * DCEndVerbose, ModuleLoad, rundown ModuleDCStart/DCEnd); other addresses are `?!?`. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl_int.h" /* UTF-16 strings and the CLR's event names, shared with the ETL reader */
#include "stackview/formats.h"
#include "sv/array.h"
#include "nettrace_int.h"
static void nt_dispose(nt_ctx *c)
{
	for (size_t i = 0; i < c->nkinds; i++)
		free(c->kinds[i].name);
	for (size_t i = 0; i < c->nmethods; i++)
		free(c->methods[i].name);
	for (size_t i = 0; i < c->nmodules; i++)
		free(c->modules[i].path);
	free(c->kinds);
	free(c->metas);
	free(c->events);
	free(c->ips);
	free(c->stks);
	free(c->methods);
	free(c->modules);
	free(c->seqs);
	for (size_t i = 0; i < c->nleaves; i++)
		free(c->leaves[i]);
	free(c->leaves);
	sv_idmap_dispose(&c->leaf_index);
	sv_nt_list_dispose(c);
	free(c->cmdline);
	sv_idmap_dispose(&c->kind_index);
	sv_idmap_dispose(&c->meta_index);
	sv_idmap_dispose(&c->stack_index);
	sv_idmap_dispose(&c->seq_index);
}

static int nt_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	nt_ctx c = { .in = in, .sink = sink, .err = err, .d = in->data, .n = in->len };
	sv_idmap_init(&c.kind_index);
	sv_idmap_init(&c.meta_index);
	sv_idmap_init(&c.stack_index);
	sv_idmap_init(&c.seq_index);
	sv_idmap_init(&c.leaf_index);
	const char *event = opts ? opts->event : NULL;
	int rc = sv_nt_parse(&c);
	uint32_t want = UINT32_MAX, sample_kind = UINT32_MAX;
	for (size_t i = 0; !rc && i < c.nkinds; i++)
		if (c.kinds[i].count && c.kinds[i].samples)
			sample_kind = (uint32_t)i;
	bool tt = event ? strcmp(event, "thread-time") == 0 : sample_kind != UINT32_MAX;
	if (!rc && tt && sample_kind == UINT32_MAX)
		rc = sv_error_set(err, SV_EINVAL, "event 'thread-time' needs the runtime's sample profiler "
						 "(dotnet-trace collect --profile cpu-sampling, the default)");
	if (!rc && !tt) {
		/* --event KIND, or with no samples the kind with the most stacks */
		size_t best = 0;
		for (size_t i = 0; i < c.nkinds; i++)
			if (event ? strcmp(c.kinds[i].name, event) == 0 : c.kinds[i].stacks > best)
				want = (uint32_t)i, best = c.kinds[i].stacks;
		if (!event && want == UINT32_MAX && c.nkinds)
			want = 0;
		if (want == UINT32_MAX) {
			char msg[1024];
			size_t o = (size_t)snprintf(msg, sizeof(msg), event ? "no event '%s' in the trace; it has:" : "%sthe trace has no events",
						    event ? event : "");
			for (size_t k = 0; event && k < c.nkinds && o < sizeof(msg); k++)
				o += (size_t)snprintf(msg + o, sizeof(msg) - o, "%s %s", k ? "," : "", c.kinds[k].name);
			if (event && sample_kind != UINT32_MAX && o < sizeof(msg))
				snprintf(msg + o, sizeof(msg) - o, ", thread-time");
			rc = sv_error_set(err, event ? SV_EINVAL : SV_EFORMAT, "%s", msg);
			if (!event)
				sv_error_locate(err, in->name, -1, -1);
		}
	}
	for (size_t i = 0; !rc && sink->ops->add_event && i < c.nkinds; i++)
		rc = sink->ops->add_event(sink->self, c.kinds[i].name, c.kinds[i].count, !tt && i == want);
	if (!rc && sink->ops->add_event && sample_kind != UINT32_MAX)
		rc = sink->ops->add_event(sink->self, "thread-time", c.kinds[sample_kind].count, tt);
	if (!rc && sink->ops->set_scaling)
		rc = sink->ops->set_scaling(sink->self, tt ? SV_SCALING_TIME : SV_SCALING_DATA);
	if (!rc && tt && sink->ops->set_intervals)
		rc = sink->ops->set_intervals(sink->self);
	if (!rc && !tt && sink->ops->set_unit)
		rc = sink->ops->set_unit(sink->self, c.kinds[want].bytes ? "bytes" : "events");
	size_t shown = 0;
	if (!rc)
		rc = sv_nt_emit_samples(&c, tt ? sample_kind : want, tt, &shown);
	if (!rc)
		rc = sv_sink_note(sink, SV_NOTE_INFO, "nettrace: pointer size %u, process %u, %u CPUs, clock %llu Hz, %zu blocks, "
						      "%zu events of %zu kinds",
				  c.ptr, c.pid, c.ncpus, (unsigned long long)c.freq, c.blocks, c.nevents, c.nkinds);
	if (!rc)
		rc = sv_sink_note(sink, SV_NOTE_INFO, "managed code: %zu methods named (method load and rundown events), %zu modules",
				  c.nmethods, c.nmodules);
	if (!rc && tt)
		rc = sv_sink_note(sink, SV_NOTE_INFO,
				  "thread-time: %zu sample profiler samples (every %.3g ms), each holding its thread's stack until the thread's "
				  "next sample: CPU_TIME in managed code, UNMANAGED_CODE_TIME elsewhere (a thread's last sample has no end)",
				  c.samples, c.rate ? c.rate / 1e6 : 1.0); /* the Trace object gives ns a sample */
	else if (!rc && !event)
		rc = sv_sink_note(sink, SV_NOTE_INFO, "no sample profiler events: showing '%s', the kind with the most stacks",
				  c.kinds[want].name);
	if (!rc && !tt && c.kinds[want].bytes)
		rc = sv_sink_note(sink, SV_NOTE_INFO,
				  "%s: each event weighs the bytes allocated since the previous one (the runtime sends one about "
				  "every 100 KB: PerfView's GC Heap Alloc Ignore Free), under a 'Type NAME' leaf",
				  c.kinds[want].name);
	bool rundown = false;
	for (size_t i = 0; i < c.nkinds && !rundown; i++)
		rundown = c.kinds[i].count && strncmp(c.kinds[i].name, "Microsoft-Windows-DotNETRuntimeRundown/", 39) == 0;
	if (!rc && c.unnamed_ips && !rundown)
		rc = sv_sink_note(sink, SV_NOTE_WARNING,
				  "no rundown in the trace: only methods jitted while it ran are named, %zu stack addresses stay ?!? "
				  "(the runtime names every loaded method at the end of a collection that dotnet-trace stops itself: "
				  "Ctrl-C, Enter or --duration, not a killed process)",
				  c.unnamed_ips);
	else if (!rc && c.unnamed_ips)
		rc = sv_sink_note(sink, SV_NOTE_INFO,
				  "%zu stack addresses are in no method the trace names (native code, or methods no load or rundown "
				  "event covers): ?!?",
				  c.unnamed_ips);
	if (!rc && c.lost)
		rc = sv_sink_note(sink, SV_NOTE_WARNING, "%zu events were dropped by the runtime (gaps in the sequence numbers)", c.lost);
	if (!rc && c.cut)
		rc = sv_sink_note(sink, SV_NOTE_WARNING, "the trace is cut short at byte %zu (no end tag): what came before is shown",
				  c.cut_at);
	if (!rc && c.unknown_meta)
		rc = sv_sink_note(sink, SV_NOTE_WARNING, "%zu events name metadata the trace does not define: left out", c.unknown_meta);
	if (!rc && c.short_payloads)
		rc = sv_sink_note(sink, SV_NOTE_WARNING, "%zu events are too short for their payload: read without it", c.short_payloads);
	if (rc == SV_ENOMEM)
		sv_error_set(err, SV_ENOMEM, NULL);
	nt_dispose(&c);
	return rc;
}

static int nt_list_events(const sv_input *in, const sv_import_opts *opts, const sv_event_lister *l, sv_error *err)
{
	(void)opts;
	nt_ctx c = { .in = in, .err = err, .d = in->data, .n = in->len, .listing = true };
	sv_idmap_init(&c.kind_index);
	sv_idmap_init(&c.meta_index);
	sv_idmap_init(&c.stack_index);
	sv_idmap_init(&c.seq_index);
	sv_idmap_init(&c.leaf_index);
	int rc = sv_nt_parse(&c);
	if (!rc)
		rc = sv_nt_list(&c, l->event, l->payload);
	char w[300];
	w[0] = '\0';
	if (!rc && l->warning && c.cut)
		snprintf(w, sizeof(w), "the trace is cut short at byte %zu (no end tag): the events before it are listed", c.cut_at), l->warning(l->payload, w);
	if (!rc && l->warning && c.lost)
		snprintf(w, sizeof(w), "%zu events were dropped by the runtime (gaps in the sequence numbers)", c.lost), l->warning(l->payload, w);
	if (!rc && l->warning && c.unknown_meta)
		snprintf(w, sizeof(w), "%zu events name metadata the trace does not define: left out", c.unknown_meta), l->warning(l->payload, w);
	if (rc == SV_ENOMEM)
		sv_error_set(err, SV_ENOMEM, NULL);
	nt_dispose(&c);
	return rc;
}

static bool nt_probe(const unsigned char *data, size_t len)
{
	return len >= 8 && memcmp(data, "Nettrace", 8) == 0;
}

static const char *const nt_patterns[] = { ".nettrace", ".netperf", NULL };

/* PerfView opens an EventPipe trace's CPU stacks as an ETL's (semantics §11.2), without the
 * process picker: the trace holds one process. */
static const sv_format_defaults nt_defaults = {
	.group = "[group module entries]  {%}!=>module $1",
};

const sv_format sv_fmt_nettrace = {
	.name = "nettrace", .patterns = nt_patterns, .probe = nt_probe, .import = nt_import, .defaults = &nt_defaults,
	.list_events = nt_list_events,
};
