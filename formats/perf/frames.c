/* SPDX-License-Identifier: MIT */
/* perf.data reader: addresses named as frames (kernel symbols, a DSO's symbols, JIT maps,
 * inline frames, module!0xADDR where no symbol is), each name interned once and the frames of
 * recent addresses kept in direct-mapped caches; stacks.c builds samples' stacks from them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_int.h"

static int intern_name(pdr *r, sv_frame_id *out, const char *module, size_t mlen, const char *sym, size_t slen)
{
	size_t len = mlen + 1 + slen;
	if (len > SV_MAX_NAME_LEN) {
		slen = SV_MAX_NAME_LEN - mlen - 1;
		len = SV_MAX_NAME_LEN;
	}
	if (sv_array_reserve(&r->name, &r->name_cap, len + 1, 1))
		return SV_ENOMEM;
	memcpy(r->name, module, mlen);
	r->name[mlen] = '!';
	memcpy(r->name + mlen + 1, sym, slen);
	return r->sink->ops->intern_frame(r->sink->self, out, r->name, len);
}

/* "0x" and addr in lower-case hex (what "0x%" PRIx64 writes) into hex[19]: its length. */
static int hex_text(char hex[24], uint64_t addr)
{
	char t[16];
	int n = 0;
	do
		t[n++] = "0123456789abcdef"[addr & 15];
	while (addr >>= 4);
	hex[0] = '0', hex[1] = 'x';
	for (int i = 0; i < n; i++)
		hex[2 + i] = t[n - 1 - i];
	hex[2 + n] = '\0';
	return 2 + n;
}

/* A frame named module!0xADDR, once per key (addr_fids: a DSO's index << 48 | the address
 * in its file; 0x7ffe << 48 | pid for a perf map's unknown; 0x7fff << 48 | an address outside
 * every mapping; a kernel address as it is). */
static int address_frame(pdr *r, sv_frame_id *out, uint64_t key, const char *module, uint64_t addr)
{
	uint32_t id = sv_idmap_get(&r->addr_fids, key);
	if (id != SV_IDMAP_NONE) {
		*out = id;
		return 0;
	}
	char hex[24];
	int hl = hex_text(hex, addr);
	int rc = intern_name(r, out, module, strlen(module), hex, (size_t)hl);
	return rc ? rc : sv_idmap_put(&r->addr_fids, key, *out);
}

int sv_pdr_unknown_frame(pdr *r, sv_frame_id *out)
{
	if (!r->have_unknown) {
		int rc = intern_name(r, &r->unknown_fid, "unknown", 7, "unknown", 7);
		if (rc)
			return rc;
		r->have_unknown = true;
	}
	*out = r->unknown_fid;
	return 0;
}

/* Entries of the frame caches by address (kernel; user, by maps generation). */
enum { KCACHE = 8192 };

int sv_pdr_kernel_frame(pdr *r, sv_frame_id *out, uint64_t ip)
{
	if (!r->kallsyms_tried) {
		r->kallsyms_tried = true;
		sv_perf_kallsyms_load(r->syms, r->kbid, r->kbid_len, r->kernel_text, r->osrelease, r->kallsyms_note,
				 sizeof(r->kallsyms_note));
		size_t nk = sv_perf_kallsyms_count(r->syms) + 1;
		if (!(r->kfids = malloc(nk * sizeof(*r->kfids))))
			return SV_ENOMEM;
		memset(r->kfids, 0xff, nk * sizeof(*r->kfids)); /* one frame id per kernel symbol */
		if (!(r->kcache = calloc(KCACHE, sizeof(*r->kcache)))) /* (ip 0: never a symbol's) */
			return SV_ENOMEM;
	}
	size_t slot = (size_t)(ip ^ ip >> 13 ^ ip >> 27) & (KCACHE - 1);
	if (r->kcache[slot].ip == ip && ip) {
		*out = r->kcache[slot].fid;
		return 0;
	}
	long i = sv_perf_kallsyms_find(r->syms, ip);
	if (i >= 0) {
		if (r->kfids[i] == UINT32_MAX) {
			const char *sym, *module;
			sv_perf_kallsyms_sym(r->syms, i, &sym, &module);
			int rc = intern_name(r, &r->kfids[i], module, strlen(module), sym, strlen(sym));
			if (rc)
				return rc;
		}
		r->kcache[slot].ip = ip, r->kcache[slot].fid = r->kfids[i];
		*out = r->kfids[i];
		return 0;
	}
	/* No symbol: the module the kernel maps name ("kernel.kallsyms" for the kernel) and the
	 * address, as perf report shows it. */
	const map *m = sv_pdr_maps_find(&r->kmaps, ip);
	const char *module = m ? m->dso->module : "kernel.kallsyms";
	if (ip >> 48 != 0xffff) { /* a key of its own only in the kernel's half */
		char hex[24];
		int hl = hex_text(hex, ip);
		return intern_name(r, out, module, strlen(module), hex, (size_t)hl);
	}
	return address_frame(r, out, ip, module, ip);
}

static int user_frame_find(pdr *r, sv_frame_id *out, const proc *pr, uint64_t ip);

int sv_pdr_user_frame(pdr *r, sv_frame_id *out, const proc *pr, uint64_t ip)
{
	if (!r->ucache && !(r->ucache = calloc(KCACHE, sizeof(*r->ucache)))) /* (gen 0: none) */
		return SV_ENOMEM;
	size_t slot = (size_t)(ip ^ ip >> 13 ^ ip >> 27 ^ pr->gen * 0x9E3779B1u) & (KCACHE - 1);
	if (r->ucache[slot].ip == ip && r->ucache[slot].gen == pr->gen && pr->gen) {
		*out = r->ucache[slot].fid;
		return 0;
	}
	int rc = user_frame_find(r, out, pr, ip);
	if (!rc)
		r->ucache[slot].gen = pr->gen, r->ucache[slot].ip = ip, r->ucache[slot].fid = *out;
	return rc;
}

static int user_frame_find(pdr *r, sv_frame_id *out, const proc *pr, uint64_t ip)
{
	const map *m = sv_pdr_maps_find(pr->m, ip);
	char hex[24];
	if (!m) { /* outside every mapping: the address alone (a broken frame-pointer chain
		   * meets hundreds of thousands: each named once) */
		if (!(ip >> 48))
			return address_frame(r, out, (uint64_t)0x7fff << 48 | ip, "unknown", ip);
		int hl = hex_text(hex, ip);
		return intern_name(r, out, "unknown", 7, hex, (size_t)hl);
	}
	sv_perf_dso *d = m->dso;
	if (d->jit) {
		const char *sym = NULL, *module = NULL;
		if (sv_perf_jit_find(r->syms, pr->pid, ip, &sym, &module)) {
			const char *jm, *rest;
			size_t jl, rl;
			size_t sl = strlen(sym);
			if (sv_perf_jit_split(sym, sl, &jm, &jl, &rest, &rl))
				return intern_name(r, out, jm, jl, rl ? rest : "unknown", rl ? rl : 7);
			return intern_name(r, out, module, strlen(module), sym, sl);
		}
		/* no map entry: one "perf-PID.map!unknown" frame a process, named once */
		uint64_t key = (uint64_t)0x7ffe << 48 | (uint32_t)pr->pid;
		uint32_t id = sv_idmap_get(&r->addr_fids, key);
		if (id != SV_IDMAP_NONE) {
			*out = id;
			return 0;
		}
		char mod[64];
		int ml = snprintf(mod, sizeof(mod), "perf-%d.map", pr->pid);
		int rc = intern_name(r, out, mod, (size_t)ml, "unknown", 7);
		return rc ? rc : sv_idmap_put(&r->addr_fids, key, *out);
	}
	sv_perf_dso_load(r->syms, d);
	if (!d->fids) {
		if (!(d->fids = malloc((d->nsyms + 1) * sizeof(*d->fids))))
			return SV_ENOMEM;
		memset(d->fids, 0xff, (d->nsyms + 1) * sizeof(*d->fids));
	}
	long i = d->nsyms ? sv_perf_dso_find(d, sv_perf_dso_addr(d, ip - m->start + m->pgoff)) : -1;
	if (i < 0) { /* no symbol: the address in the file, as perf report's [.] 0x… rows */
		uint64_t off = ip - m->start + m->pgoff;
		if (d->index < 0x7ffe && !(off >> 48))
			return address_frame(r, out, (uint64_t)d->index << 48 | off, d->module, off);
		int hl = hex_text(hex, off);
		return intern_name(r, out, d->module, strlen(d->module), hex, (size_t)hl);
	}
	size_t slot = (size_t)i;
	if (d->fids[slot] == UINT32_MAX) {
		const char *sym = i < 0 ? "unknown" : sv_perf_dso_name(d, i);
		int rc = intern_name(r, &d->fids[slot], d->module, strlen(d->module), sym, strlen(sym));
		if (rc)
			return rc;
	}
	*out = d->fids[slot];
	return 0;
}

/* The inline frames at a DWARF-unwound user address, innermost first (perf script prints
 * them leafward of the real frame and names them with its module). Cached per (DSO,
 * address); *fids points into the cache until the next call. */
int sv_pdr_inline_frames(pdr *r, const proc *pr, uint64_t ip, const sv_frame_id **fids, size_t *n)
{
	*n = 0;
	*fids = NULL;
	const map *m = sv_pdr_maps_find(pr->m, ip);
	if (!m || m->dso->jit || m->dso->kernel)
		return 0;
	sv_perf_dso *d = m->dso;
	uint64_t addr = sv_perf_dso_addr(d, ip - m->start + m->pgoff);
	if (addr >> 48)
		return 0;
	uint64_t key = (uint64_t)d->index << 48 | addr;
	uint32_t at = sv_idmap_get(&r->inl_idx, key);
	if (at == SV_IDMAP_NONE) {
		sv_perf_dso_load(r->syms, d);
		const char *names[16];
		char buf[4096];
		size_t k = sv_perf_dso_inlines(r->syms, d, addr, names, 16, buf, sizeof(buf));
		if (SV_ARRAY_RESERVE(r->inl, r->inl_cap, r->ninl + 1) ||
		    SV_ARRAY_RESERVE(r->inl_fids, r->inl_fids_cap, r->ninl_fids + k))
			return SV_ENOMEM;
		for (size_t i = 0; i < k; i++) { /* marked as perf script and perf report mark them */
			char marked[600];
			int ml = snprintf(marked, sizeof(marked), "%.580s (inlined)", names[i]);
			int rc = intern_name(r, &r->inl_fids[r->ninl_fids + i], d->module, strlen(d->module), marked,
					     (size_t)ml);
			if (rc)
				return rc;
		}
		r->inl[r->ninl][0] = (uint32_t)r->ninl_fids;
		r->inl[r->ninl][1] = (uint32_t)k;
		r->ninl_fids += k;
		at = (uint32_t)++r->ninl;
		if (sv_idmap_put(&r->inl_idx, key, at))
			return SV_ENOMEM;
	}
	*n = r->inl[at - 1][1];
	*fids = *n ? r->inl_fids + r->inl[at - 1][0] : NULL;
	return 0;
}
