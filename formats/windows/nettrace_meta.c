/* SPDX-License-Identifier: MIT */
/* .nettrace reader: event kinds from MetadataBlocks (provider, id, name; the runtime's known
 * names where the metadata has none), and the runtime's events it reads: methods, modules,
 * the process. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "etl_int.h" /* UTF-16 strings and the CLR's event names, shared with the ETL reader */
#include "stackview/formats.h"
#include "sv/array.h"
#include "sv/idmap.h"
#include "nettrace_int.h"

/* ---- kinds ---- */

static int kind_of(nt_ctx *c, const char *name, uint32_t *out)
{
	size_t len = strlen(name);
	for (uint64_t h = sv_hash_bytes(name, len);; h++) {
		uint32_t i = sv_idmap_get(&c->kind_index, h);
		if (i == SV_IDMAP_NONE) {
			char *dup = strdup(name);
			if (!dup || SV_ARRAY_PUSH(c->kinds, c->nkinds, c->kindcap, ((nt_kind){ dup, 0, 0, false, false }))) {
				free(dup);
				return SV_ENOMEM;
			}
			*out = (uint32_t)c->nkinds - 1;
			return sv_idmap_put(&c->kind_index, h, (uint32_t)c->nkinds);
		}
		if (strcmp(c->kinds[i - 1].name, name) == 0) {
			*out = i - 1;
			return 0;
		}
	}
}

/* A UTF-16 string at p[*at..n) (NUL-terminated): a malloc'ed UTF-8 copy, *at past it; NULL
 * with *nomem for no memory, NULL alone when the string has no terminator. */
static char *utf16_field(const unsigned char *p, size_t n, size_t *at, bool *nomem)
{
	size_t i;
	if (!sv_etl_utf16_ends(p + *at, n - *at, &i))
		return NULL;
	size_t used = 0;
	char *s = sv_etl_dup_utf16(p + *at, n - *at, &used);
	if (!s)
		*nomem = true;
	*at += used;
	return s;
}

/* How TraceEvent names the events of the providers we know when the metadata carries no
 * name (the runtime's own events), else NULL. */
static const char *known_name(const char *provider, int id, int *role)
{
	*role = R_OTHER;
	if (strcmp(provider, "Microsoft-DotNETCore-SampleProfiler") == 0 && id == 0)
		return *role = R_SAMPLE, "Thread/Sample";
	if (strcmp(provider, "Microsoft-DotNETCore-EventPipe") == 0 && id == 1)
		return *role = R_PROCINFO, "ProcessInfo";
	bool rt = strcmp(provider, "Microsoft-Windows-DotNETRuntime") == 0;
	bool rundown = strcmp(provider, "Microsoft-Windows-DotNETRuntimeRundown") == 0;
	if (rt && id == 10)
		*role = R_ALLOC;
	else if ((rt && (id == 143 || id == 144)) || (rundown && (id == 143 || id == 144)))
		*role = R_METHOD;
	else if ((rt && id == 152) || (rundown && (id == 153 || id == 154)))
		*role = R_MODULE;
	const char *n = sv_etl_manifest_event_name(provider, id);
	if (!n && rundown && id == 143)
		n = "Method/DCStartVerbose";
	if (!n && rundown && id == 153)
		n = "Loader/ModuleDCStart";
	return n;
}

/* A field list of format 5's metadata at p[*at..n): i32 count, then per field an i32 type code
 * (1 = an object: a nested list follows) and a UTF-16 name. False when it does not fit. */
static bool skip_fields(const unsigned char *p, size_t n, size_t *at, int depth)
{
	if (depth > 16 || n - *at < 4)
		return false;
	uint32_t count = rd32(p + *at);
	*at += 4;
	for (uint32_t i = 0; i < count; i++) {
		if (n - *at < 4)
			return false;
		uint32_t type = rd32(p + *at);
		*at += 4;
		if (type == 1 && !skip_fields(p, n, at, depth + 1))
			return false;
		while (n - *at >= 2 && (p[*at] || p[*at + 1]))
			*at += 2;
		if (n - *at < 2)
			return false;
		*at += 2;
	}
	return true;
}

/* The opcode of an event: format 5's Opcode tag after the fields (i32 length, u8 tag 1, u8
 * opcode), else -1. */
static int meta_opcode(const unsigned char *p, size_t n, size_t at)
{
	if (n - at < 16)
		return -1;
	at += 16; /* keywords, version, level */
	if (!skip_fields(p, n, &at, 0))
		return -1;
	while (n - at >= 5) {
		uint32_t len = rd32(p + at);
		uint8_t tag = p[at + 4];
		at += 5;
		if (len > n - at)
			return -1;
		if (tag == 1 && len >= 1)
			return p[at];
		at += len;
	}
	return -1;
}

static bool ends_with_ci(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

/* An EventSource event's name as TraceEvent gives it: the opcode from the metadata, or else
 * Start/Stop when the name ends so; that suffix taken off the name; then "/OPCODE" for a
 * nonzero opcode, named as TraceEvent's TraceEventOpcode names it (a number otherwise). */
static void source_event_name(char *out, size_t cap, const char *prov, char *name, int opcode)
{
	static const char *const std_ops[] = { NULL, "Start", "Stop", "DataCollectionStart", "DataCollectionStop",
					       "Extension", "Reply", "Resume", "Suspend", "Transfer" };
	if (opcode < 0)
		opcode = ends_with_ci(name, "Start") ? 1 : ends_with_ci(name, "Stop") ? 2 : 0;
	if (opcode == 1 && ends_with_ci(name, "Start"))
		name[strlen(name) - 5] = '\0';
	else if (opcode == 2 && ends_with_ci(name, "Stop"))
		name[strlen(name) - 4] = '\0';
	const char *on = opcode < 10 ? std_ops[opcode] : opcode == 240 ? "Receive" : NULL;
	if (!opcode)
		snprintf(out, cap, "%s/%s", prov, name);
	else if (on)
		snprintf(out, cap, "%s/%s/%s", prov, name, on);
	else
		snprintf(out, cap, "%s/%s/%d", prov, name, opcode);
}

/* A metadata record: i32 MetaDataId, UTF-16 ProviderName, i32 EventId, UTF-16 EventName,
 * i64 Keywords, i32 Version, i32 Level, the fields, then (format 5) tags such as the opcode. */
int sv_nt_on_metadata(nt_ctx *c, const unsigned char *p, size_t n, size_t off)
{
	bool nomem = false;
	size_t at = 4;
	if (n < 4)
		return sv_nt_fail(c, off, "a metadata record of %zu bytes is too short", n);
	uint32_t id = rd32(p);
	int eid = 0, role;
	char *prov = utf16_field(p, n, &at, &nomem), *name = NULL;
	if (prov && n - at >= 4) {
		eid = (int)rd32(p + at);
		at += 4;
		name = utf16_field(p, n, &at, &nomem);
	}
	int rc = 0;
	if (nomem) {
		rc = SV_ENOMEM;
	} else if (!prov || !name) {
		rc = sv_nt_fail(c, off, "metadata record %u does not hold its provider and event names", id);
	} else {
		const char *known = known_name(prov, eid, &role);
		char full[512];
		if (name[0])
			source_event_name(full, sizeof(full), prov[0] ? prov : "?", name, meta_opcode(p, n, at));
		else if (known)
			snprintf(full, sizeof(full), "%s/%s", prov, known);
		else
			snprintf(full, sizeof(full), "%s/EventID(%d)", prov[0] ? prov : "?", eid);
		uint32_t kind, f0 = 0, nf = 0;
		/* the payload's layout, for the listing (a description that does not read: none) */
		if (c->listing && n - at >= 16)
			rc = sv_nt_meta_fields(c, p, n, at + 16, &f0, &nf);
		if (!rc && !(rc = kind_of(c, full, &kind))) {
			c->kinds[kind].samples |= role == R_SAMPLE;
			c->kinds[kind].bytes |= role == R_ALLOC;
			uint32_t i = sv_idmap_get(&c->meta_index, id);
			nt_meta m = { kind, role, f0, nf };
			if (i != SV_IDMAP_NONE) {
				c->metas[i - 1] = m;
			} else if (SV_ARRAY_PUSH(c->metas, c->nmetas, c->metacap, m)) {
				rc = SV_ENOMEM;
			} else {
				rc = sv_idmap_put(&c->meta_index, id, (uint32_t)c->nmetas);
			}
		}
	}
	free(prov);
	free(name);
	return rc;
}

/* ---- the runtime's events we read ---- */

/* MethodLoadVerbose / MethodDCStart|EndVerbose: u64 MethodID, ModuleID, MethodStartAddress;
 * u32 MethodSize, MethodToken, MethodFlags; UTF-16 Namespace, Name, Signature; ... */
int sv_nt_on_method(nt_ctx *c, const unsigned char *p, size_t n)
{
	if (n < 36) {
		c->short_payloads++;
		return 0;
	}
	bool nomem = false;
	size_t at = 36;
	char *ns = utf16_field(p, n, &at, &nomem);
	char *nm = ns ? utf16_field(p, n, &at, &nomem) : NULL;
	char *sig = nm ? utf16_field(p, n, &at, &nomem) : NULL;
	int rc = 0;
	if (nomem) {
		rc = SV_ENOMEM;
	} else if (!sig) {
		c->short_payloads++;
	} else {
		char *full = sv_etl_method_name(ns, nm, sig);
		nt_method m = { rd64(p + 16), rd32(p + 24), rd64(p + 8), full };
		if (!full || SV_ARRAY_PUSH(c->methods, c->nmethods, c->methodcap, m)) {
			free(full);
			rc = SV_ENOMEM;
		}
	}
	free(ns);
	free(nm);
	free(sig);
	return rc;
}

/* ModuleLoad / ModuleDCStart|DCEnd: u64 ModuleID, AssemblyID; u32 ModuleFlags, Reserved1;
 * UTF-16 ModuleILPath, ... */
int sv_nt_on_module(nt_ctx *c, const unsigned char *p, size_t n)
{
	bool nomem = false;
	size_t at = 24;
	char *path = n > 24 ? utf16_field(p, n, &at, &nomem) : NULL;
	if (nomem)
		return SV_ENOMEM;
	if (!path) {
		c->short_payloads++;
		return 0;
	}
	if (SV_ARRAY_PUSH(c->modules, c->nmodules, c->modulecap, ((nt_module){ rd64(p), path }))) {
		free(path);
		return SV_ENOMEM;
	}
	return 0;
}

/* Microsoft-DotNETCore-EventPipe/ProcessInfo: UTF-16 CommandLine, OSInformation, ArchInformation. */
int sv_nt_on_procinfo(nt_ctx *c, const unsigned char *p, size_t n)
{
	bool nomem = false;
	size_t at = 0;
	char *cmd = utf16_field(p, n, &at, &nomem);
	if (nomem)
		return SV_ENOMEM;
	if (cmd) {
		free(c->cmdline);
		c->cmdline = cmd;
	}
	return 0;
}

/* GC/AllocationTick (PerfView's GC Heap Alloc Ignore Free): u32 AllocationAmount, u32
 * AllocationKind (1: the large object heap), u16 ClrInstanceID, then (version 2 on) u64
 * AllocationAmount64, a pointer TypeID, UTF-16 TypeName. The bytes allocated since the
 * previous tick, under "Type NAME" (and LargeObject), as the ETL reader weighs them. */
int sv_nt_on_alloc_tick(nt_ctx *c, const unsigned char *p, size_t n, double *metric, uint32_t *leaf)
{
	*leaf = 0;
	if (n < 8) {
		c->short_payloads++;
		return 0;
	}
	uint32_t kind = rd32(p + 4);
	*metric = rd32(p);
	char text[700];
	snprintf(text, sizeof(text), "%s", kind == 1 ? "LargeObject;Type ?" : "Type ?");
	size_t at = 18 + c->ptr;
	if (n >= at + 2) {
		*metric = (double)rd64(p + 10);
		bool nomem = false;
		char *type = utf16_field(p, n, &at, &nomem);
		if (nomem)
			return SV_ENOMEM;
		if (type && type[0])
			snprintf(text, sizeof(text), "%s%.600s", kind == 1 ? "LargeObject;Type " : "Type ", type);
		free(type);
	}
	size_t len = strlen(text);
	for (uint64_t h = sv_hash_bytes(text, len);; h++) {
		uint32_t i = sv_idmap_get(&c->leaf_index, h);
		if (i == SV_IDMAP_NONE) {
			char *dup = strdup(text);
			if (!dup || SV_ARRAY_PUSH(c->leaves, c->nleaves, c->leafcap, dup)) {
				free(dup);
				return SV_ENOMEM;
			}
			*leaf = (uint32_t)c->nleaves;
			return sv_idmap_put(&c->leaf_index, h, (uint32_t)c->nleaves);
		}
		if (strcmp(c->leaves[i - 1], text) == 0) {
			*leaf = i;
			return 0;
		}
	}
}
