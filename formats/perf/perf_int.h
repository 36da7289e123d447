/* SPDX-License-Identifier: MIT */
/* Internals of the perf importers shared between the text importer, the perf.data reader,
 * its symbolizer and unwinder (formats/ only).
 *
 * Ownership: sv_perf_syms owns every sv_perf_dso, its symbol tables and names, the kallsyms table
 * and the JIT perf maps; pointers returned into them stay valid until sv_perf_syms_free. */
#ifndef STACKVIEW_FORMATS_PERF_INT_H
#define STACKVIEW_FORMATS_PERF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackview/formats.h"
#include "sv/idmap.h"
#include "sv/array.h"

/* In an array of `n` records of `size` bytes sorted by the uint64_t at byte `key` of each
 * (a start address), how many start at or before addr: the one covering addr, if any, is
 * the last of those. */
size_t sv_perf_upper(const void *v, size_t n, size_t size, size_t key, uint64_t addr);

/* The same search over a large table's keys copied apart: at the bottom each record's start
 * and end (its key and the uint64_t at `end`), four to a cache line; above, the first start
 * of each line below, eight to a line, and so on up to one line. A search reads one line a
 * level (five for 30,000 symbols), where a binary search reads a line at each of its lower
 * levels, one after another, and then the record's end (a symbol table is searched for most
 * frames of a recording). Owns its array. */
#define SV_PERF_KEYS_LEVELS 12
typedef struct sv_perf_keys {
	uint64_t *keys;                     /* the levels; NULL: not built */
	size_t n;                           /* records */
	size_t off[SV_PERF_KEYS_LEVELS];    /* where level k starts (0: the bottom's pairs) */
	unsigned nlevels;
} sv_perf_keys;
/* Built for n records as sv_perf_upper takes them, each with its end at byte `end`;
 * tables of fewer than 64 are not indexed (k->keys NULL). SV_ENOMEM leaves it so too:
 * searches then read the records. */
int sv_perf_keys_build(sv_perf_keys *k, const void *v, size_t n, size_t size, size_t key, size_t end);
/* sv_perf_upper's answer, and when it is not 0 the end of the record before it (the one
 * that may cover addr) in *end; k must be built over the same n records. */
size_t sv_perf_keys_upper(const sv_perf_keys *k, uint64_t addr, uint64_t *end);
void sv_perf_keys_free(sv_perf_keys *k);

/* A tracepoint's printed text ("prev_comm=perf prev_pid=13 ... ==> next_comm=..."), as the
 * Events view's fields: each blank-separated NAME=VALUE word, copied NUL-terminated into buf
 * (room for 2 * n + 2 bytes) and pointed at by names/values (at most max); a text with
 * no such word is one field "text" holding it whole (none for an empty text). */
size_t sv_perf_text_fields(const char *text, size_t n, char *buf, const char **names, const char **values, size_t max);

/* names.c: the Process and Thread frames (see there). Importers call
 * sv_perf_names_thread for every sample's thread (its comm as the sample names it),
 * sv_perf_names_main_comm for a process's main thread's final comm when they know it, and
 * sv_perf_names_finish once at the end. */
#define SV_PERF_COMM_MAX 64
typedef struct sv_perf_nproc {
	long long pid;
	sv_frame_id frame;
	char first[SV_PERF_COMM_MAX], main[SV_PERF_COMM_MAX];
	bool has_main;
} sv_perf_nproc;
typedef struct sv_perf_nthread {
	long long pid, tid;
	sv_frame_id frame;
	sv_stack_id stack; /* Process -> Thread */
	sv_frame_id waker; /* READIED_BY frame, when has_waker */
	bool has_waker;
	char comm[SV_PERF_COMM_MAX];
} sv_perf_nthread;
typedef struct sv_perf_names {
	sv_perf_nproc *p;
	size_t np, pcap;
	sv_idmap pidx; /* pid -> index */
	sv_perf_nthread *t;
	size_t nt, tcap;
	sv_idmap tidx; /* (pid, tid) -> index */
} sv_perf_names;
void sv_perf_names_init(sv_perf_names *n);
void sv_perf_names_dispose(sv_perf_names *n);
int sv_perf_names_thread(sv_perf_names *n, sv_sink *sink, long long pid, long long tid, const char *comm, size_t len,
			 sv_stack_id *out);
/* The frame heading a waker's frames in a thread-time view, for a thread
 * sv_perf_names_thread has seen: "READIED_BY Process X (pid) Thread (tid) comm" once named. */
int sv_perf_names_waker(sv_perf_names *n, sv_sink *sink, long long pid, long long tid, sv_frame_id *out);
void sv_perf_names_main_comm(sv_perf_names *n, long long pid, const char *comm, size_t len);
int sv_perf_names_finish(sv_perf_names *n, sv_sink *sink);
/* What a reader of the same input's later part met (its ids mapped into n's sink by fmap
 * and smap) joins n, as if one reader had met it all: new processes and threads after n's,
 * a thread's latest name the later part's. 0 or SV_ENOMEM. */
int sv_perf_names_join(sv_perf_names *n, const sv_perf_names *later, const sv_frame_id *fmap, const sv_stack_id *smap);

/* A JIT perf-map symbol "… [Module] Ns.Type::M(args)" names its module in brackets
 * (semantics.md §1.5 step 3): on success *module and *rest point into `sym`. */
bool sv_perf_jit_split(const char *sym, size_t n, const char **module, size_t *mlen, const char **rest,
		       size_t *rlen);

/* A debuginfod request's watch (common.c): libdebuginfod calls sv_dbgd_progress, with the
 * watch as the client's user data, at least once a second while a request runs; it ends the
 * request when the network budget's Ctrl-C came (net) or its deadline passed (until), saying
 * why in `why` (libdebuginfod's own time-outs are about 90 s a request, with retries, per
 * server). Shared by the symbolizer (sym.c) and the source reader (code_text.c). */
struct debuginfod_client;
struct sv_net;
typedef struct sv_dbgd_watch {
	struct sv_net *net;
	double until; /* monotonic seconds */
	char why[200]; /* "" while it runs on */
} sv_dbgd_watch;
int sv_dbgd_progress(struct debuginfod_client *client, long a, long b);

/* ---- symbolizer (sym.c) ---- */

typedef struct sv_perf_sym {
	uint64_t start, end; /* ELF virtual addresses; end exclusive */
	uint32_t name;       /* offset into the DSO's name bytes */
	uint32_t demangled;  /* offset of the demangled name, or UINT32_MAX = not yet, or = name */
} sv_perf_sym;

typedef struct sv_perf_load {
	uint64_t offset, vaddr, filesz;
} sv_perf_load;

typedef struct sv_perf_dso {
	char *path;          /* as recorded ("/usr/lib/…/libc.so.6", "[vdso]", "//anon") */
	char *module;        /* the frame's module name: basename, brackets removed */
	unsigned char build_id[20];
	uint8_t build_id_len;
	bool kernel;         /* [kernel.kallsyms], a kernel module */
	bool jit;            /* anonymous or memfd memory: symbols come from perf-PID.map */
	bool tried;          /* the ELF file was looked for */
	char *elf_path;      /* the file whose symbols we use, NULL when none was found */
	sv_perf_load *loads;
	size_t nloads;
	sv_perf_sym *syms;
	size_t nsyms;
	sv_perf_keys starts; /* syms' starts, searched (empty: search syms) */
	char *names;
	size_t names_len, names_cap;
	uint32_t *fids;      /* frame id per symbol (+1 at the end: "unknown"), owned by the reader */
	/* DWARF for inline frames, opened on the first lookup and kept until the end */
	bool inl_tried;
	void *inl_dwfl, *inl_mod; /* Dwfl *, Dwfl_Module * */
	uint32_t index;      /* position in the symbolizer's list */
	uint32_t code_file;  /* its code file in the sink (code locations), +1; 0 = not yet */
} sv_perf_dso;

typedef struct sv_perf_syms sv_perf_syms;

typedef struct sv_perf_sym_opts {
	const char *kallsyms;     /* file (plain or gzip); NULL = decide from the build id */
	const char *debug_dirs;   /* ':'-separated, searched before ~/.debug and /usr/lib/debug */
	const char *perf_map_dir; /* where perf-PID.map files are; NULL = /tmp */
	const char *symfs;        /* the recording's files under this root (perf's --symfs) */
	bool debuginfod;          /* ask debuginfod (DEBUGINFOD_URLS) for files by build id */
	struct sv_net *net;       /* the requests' time and Ctrl-C (core/net.h); borrowed, may be NULL */
} sv_perf_sym_opts;

int sv_perf_syms_new(sv_perf_syms **out, const sv_perf_sym_opts *opts);
/* The functions of the ELF file at path as the perf symbolizer names them (what perf.data
 * frames in it are called), each handed to add: 0, SV_ENOTFOUND when it is no ELF file with
 * symbols, or add's error. */
int sv_perf_list_elf(const char *path, int (*add)(void *payload, uint64_t start, uint64_t end, const char *name),
		     void *payload);
/* How many files were asked of debuginfod, and found there; why the last request stopped
 * early ("" when it did not). */
void sv_perf_syms_debuginfod(const sv_perf_syms *s, size_t *asked, size_t *found, const char **why);
void sv_perf_syms_free(sv_perf_syms *s);

/* The DSO for a path (and build id when known), created on first use. NULL = out of memory. */
sv_perf_dso *sv_perf_dso_get(sv_perf_syms *s, const char *path, size_t len);
/* Remember a build id for a path (BUILD_ID feature, MMAP2 with build id). */
int sv_perf_dso_set_build_id(sv_perf_syms *s, const char *path, size_t len, const unsigned char *id, size_t idlen);
size_t sv_perf_dso_count(const sv_perf_syms *s);
sv_perf_dso *sv_perf_dso_at(sv_perf_syms *s, size_t i);

/* Load the DSO's symbol table if not done yet (never fails: a missing file leaves no symbols). */
void sv_perf_dso_load(sv_perf_syms *s, sv_perf_dso *d);
/* The loaded DSO of a file a profile's text names (pprof mappings, perf script lines), its
 * build id remembered first when known (idlen 0: none), through *s (made on first use with
 * the import's debug directories and --symfs): *out NULL when no ELF file with code is found
 * for it. 0 or SV_ENOMEM. */
int sv_perf_dso_for(sv_perf_syms **s, const sv_import_opts *opts, const char *path, size_t len, const unsigned char *id,
		    size_t idlen, sv_perf_dso **out);
/* File offset → ELF address through the PT_LOAD table (identity when none covers it). */
uint64_t sv_perf_dso_addr(const sv_perf_dso *d, uint64_t file_off);
/* Index of the symbol containing an ELF address, or -1. */
long sv_perf_dso_find(const sv_perf_dso *d, uint64_t addr);
/* The symbol's name as perf prints it (demangled without parameters); valid until the next
 * call for this DSO. */
const char *sv_perf_dso_name(sv_perf_dso *d, long i);

/* The functions inlined at an ELF address, innermost first, as perf names inline frames
 * (the DWARF name of each DW_TAG_inlined_subroutine's origin, C++ linkage names demangled
 * without parameters): at most `max` pointers into `buf`. 0 without DWARF or inlines. The
 * file (or its debug file, found as libdwfl finds debuginfo) stays open once looked at. */
size_t sv_perf_dso_inlines(sv_perf_syms *s, sv_perf_dso *d, uint64_t addr, const char **names, size_t max, char *buf,
			   size_t bufsize);
/* Kernel symbols. sv_perf_kallsyms_load is called once the recording's kernel build id and _text
 * address are known; `note` receives one line about where the symbols came from. */
void sv_perf_kallsyms_load(sv_perf_syms *s, const unsigned char *kernel_build_id, size_t idlen, uint64_t text_addr,
		      const char *osrelease, char *note, size_t notesize);
/* Index of the kernel symbol covering addr, or -1; sv_perf_kallsyms_sym gives its name and module
 * ("kernel.kallsyms" or the module's name). */
long sv_perf_kallsyms_find(const sv_perf_syms *s, uint64_t addr);
void sv_perf_kallsyms_sym(const sv_perf_syms *s, long i, const char **sym, const char **module);
uint64_t sv_perf_kallsyms_addr(const sv_perf_syms *s, long i);
size_t sv_perf_kallsyms_count(const sv_perf_syms *s);

/* JIT symbols of a process from perf-PID.map: false when none covers addr. The map is read
 * on first use; *module is "perf-PID.map". */
bool sv_perf_jit_find(sv_perf_syms *s, int pid, uint64_t addr, const char **sym, const char **module);

/* libdwfl callbacks that find files by build id in the debug directories (a Dwfl_Callbacks). */
const void *sv_perf_syms_callbacks(const sv_perf_syms *s);

/* ---- DWARF unwinding (unwind.c) ---- */

typedef struct sv_perf_unwinder sv_perf_unwinder;
int sv_perf_unwinder_new(sv_perf_unwinder **out, const void *callbacks, int pid);
void sv_perf_unwinder_free(sv_perf_unwinder *u);
/* The process's files with their load biases now; reported to libdwfl when new. */
int sv_perf_unwinder_sync(sv_perf_unwinder *u, const sv_perf_dso *const *dsos, const uint64_t *bias, size_t n);
/* Unwind one sample from perf's user registers (x86_64 numbering, `mask` = sample_regs_user)
 * and stack copy: program counters leaf first, callers at return address - 1. At least the
 * sample's IP when registers are present. */
size_t sv_perf_unwinder_run(sv_perf_unwinder *u, const uint64_t *regs, size_t nregs, uint64_t mask,
			    const unsigned char *stack, size_t stack_len, uint64_t *pcs, size_t max);

/* Open file descriptors and memory are bounded: at most this many ELF files are opened. */
#define SV_PERF_MAX_DSOS 65536u

/* Whether a mapped file belongs to the profiled programs: an executable anywhere (/usr/bin/gcc,
 * ./mt), or a library outside the system's directories (/usr, /lib, ...). Not: the kernel,
 * vdso, unknown, anonymous memory, JIT maps (names without an absolute path). */
bool sv_perf_program_file(const char *path, size_t len);

/* PerfView's opening state for perf recordings (both perf importers). */
extern const sv_format_defaults sv_perf_defaults;

#endif
