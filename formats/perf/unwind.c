/* SPDX-License-Identifier: MIT */
/* DWARF unwinding of `perf record --call-graph dwarf` samples (spec/perf.md §7.2): one Dwfl
 * per process with its ELF files reported at their runtime addresses, unwound by
 * dwfl_getthread_frames from the sample's user registers and its copy of the user stack.
 * Reads outside the stack copy come from the files' sections; nothing else is trusted. */
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf_int.h"
#include "core/side_file.h"

typedef struct reported {
	const sv_perf_dso *dso;
	uint64_t bias;
} reported;

struct sv_perf_unwinder {
	int pid;
	const Dwfl_Callbacks *cb;
	Dwfl *dwfl;
	bool attached;
	reported *mods;
	size_t nmods, cap;
	/* the sample being unwound */
	const uint64_t *regs;
	size_t nregs;
	uint64_t mask;
	const unsigned char *stack;
	size_t stack_len;
	uint64_t sp;
	uint64_t *pcs;
	size_t max, n;
	bool first_returned;
};

/* Value of perf register k (x86_64 numbering) from the sample's register array. */
static bool perf_reg(const sv_perf_unwinder *u, unsigned k, uint64_t *out)
{
	if (!(u->mask >> k & 1))
		return false;
	size_t idx = (size_t)__builtin_popcountll(u->mask & ((1ull << k) - 1));
	if (idx >= u->nregs)
		return false;
	*out = u->regs[idx];
	return true;
}

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	sv_perf_unwinder *u = arg;
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return u->pid > 0 ? u->pid : 1;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

static bool cb_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const sv_perf_unwinder *u = arg;
	/* DWARF x86_64: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip; perf: AX BX CX DX SI DI BP SP
	 * IP FLAGS CS SS DS ES FS GS R8..R15. */
	static const unsigned perf_of_dwarf[17] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 };
	Dwarf_Word regs[17];
	for (unsigned i = 0; i < 17; i++) {
		uint64_t v = 0;
		if (!perf_reg(u, perf_of_dwarf[i], &v) && (i == 7 || i == 16))
			return false;
		regs[i] = v;
	}
	return dwfl_thread_state_registers(thread, 0, 17, regs);
}

/* Stack words from the copy; other addresses from the ELF file sections of the modules. */
static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	const sv_perf_unwinder *u = arg;
	if (addr >= u->sp && addr - u->sp <= u->stack_len && u->stack_len - (addr - u->sp) >= 8) {
		memcpy(result, u->stack + (addr - u->sp), 8);
		return true;
	}
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	if (!mod)
		return false;
	Dwarf_Addr a = addr, bias;
	Elf_Scn *scn = dwfl_module_address_section(mod, &a, &bias);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	if (!d || !d->d_buf || a > d->d_size || d->d_size - a < 8)
		return false;
	memcpy(result, (const char *)d->d_buf + a, 8);
	return true;
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_initial_registers,
};

int sv_perf_unwinder_new(sv_perf_unwinder **out, const void *callbacks, int pid)
{
	sv_perf_unwinder *u = calloc(1, sizeof(*u));
	if (!u)
		return SV_ENOMEM;
	u->pid = pid;
	u->cb = callbacks;
	*out = u;
	return 0;
}

void sv_perf_unwinder_free(sv_perf_unwinder *u)
{
	if (!u)
		return;
	if (u->dwfl)
		dwfl_end(u->dwfl);
	free(u->mods);
	free(u);
}

static bool known(const sv_perf_unwinder *u, const sv_perf_dso *d, uint64_t bias)
{
	for (size_t i = 0; i < u->nmods; i++)
		if (u->mods[i].dso == d && u->mods[i].bias == bias)
			return true;
	return false;
}

static bool report(sv_perf_unwinder *u, const sv_perf_dso *d, uint64_t bias)
{
	int fd = sv_side_open(d->elf_path, SV_MAX_SIDE_ELF); /* never a FIFO or device */
	if (fd < 0)
		return false;
	Dwfl_Module *m = dwfl_report_elf(u->dwfl, d->module, d->elf_path, fd, bias, true);
	if (!m) {
		close(fd);
		return false;
	}
	if (SV_ARRAY_RESERVE(u->mods, u->cap, u->nmods + 1))
		return false;
	u->mods[u->nmods++] = (reported){ d, bias };
	return true;
}

int sv_perf_unwinder_sync(sv_perf_unwinder *u, const sv_perf_dso *const *dsos, const uint64_t *bias, size_t n)
{
	bool fresh = false;
	for (size_t i = 0; i < n; i++)
		fresh |= !known(u, dsos[i], bias[i]);
	if (!fresh && u->dwfl)
		return 0;
	/* Add what is new; when that fails (an exec put another file where one was), start over
	 * with the current mappings only. */
	for (int attempt = 0; attempt < 2; attempt++) {
		if (!u->dwfl) {
			if (!(u->dwfl = dwfl_begin(u->cb)))
				return SV_ENOMEM;
			u->attached = false;
			u->nmods = 0;
			dwfl_report_begin(u->dwfl);
		} else {
			dwfl_report_begin_add(u->dwfl);
		}
		bool ok = true;
		for (size_t i = 0; i < n && ok; i++)
			if (!known(u, dsos[i], bias[i]))
				ok = report(u, dsos[i], bias[i]);
		dwfl_report_end(u->dwfl, NULL, NULL);
		if (ok)
			break;
		dwfl_end(u->dwfl);
		u->dwfl = NULL;
	}
	if (u->dwfl && !u->attached && u->nmods)
		u->attached = dwfl_attach_state(u->dwfl, NULL, u->pid > 0 ? u->pid : 1, &thread_cbs, u);
	return 0;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	sv_perf_unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation = false;
	if (!dwfl_frame_pc(state, &pc, &activation) || pc == 0)
		return DWARF_CB_ABORT;
	/* Callers are named at the call (return address - 1), as perf does. */
	uint64_t at = activation || u->n == 0 ? pc : pc - 1;
	u->pcs[u->n++] = at;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

size_t sv_perf_unwinder_run(sv_perf_unwinder *u, const uint64_t *regs, size_t nregs, uint64_t mask,
			    const unsigned char *stack, size_t stack_len, uint64_t *pcs, size_t max)
{
	u->regs = regs;
	u->nregs = nregs;
	u->mask = mask;
	u->stack = stack;
	u->stack_len = stack_len;
	u->pcs = pcs;
	u->max = max;
	u->n = 0;
	uint64_t ip = 0;
	if (!max || !perf_reg(u, 8, &ip) || !perf_reg(u, 7, &u->sp))
		return 0;
	if (u->dwfl && u->attached)
		(void)dwfl_getthread_frames(u->dwfl, u->pid > 0 ? u->pid : 1, frame_cb, u); /* -1 ends most stacks */
	if (u->n == 0) /* nothing unwound: at least where the sample was */
		pcs[u->n++] = ip;
	return u->n;
}
