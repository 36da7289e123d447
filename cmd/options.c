/* SPDX-License-Identifier: MIT */
/* Command-line parsing (spec/cli.md). */
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

void cli_usage(FILE *f)
{
	fputs("usage: stackview [FILE] [FILTER...]            terminal UI (no FILE: the tutorial profile)\n"
	      "       stackview info FILE [--json]\n"
	      "       stackview byname FILE [FILTER...] [OUT...]\n"
	      "       stackview calltree FILE [FILTER...] [OUT...] [--depth N]\n"
	      "       stackview callers|callees|callercallee FILE --focus NAME [FILTER...] [OUT...]\n"
	      "       stackview diff BASE TEST [--view byname|calltree|callers|callees|callercallee]\n"
	      "                      [--focus NAME] [FILTER...] [--select-*...] [MATCH...] [OUT...]\n"
	      "       stackview diff BASE... -- TEST...   several runs a side: means, 95 % interval, Sig\n"
	      "       stackview overweight BASE TEST | BASE... -- TEST... [FILTER...] [--json|--tsv]\n"
	      "       stackview check BUDGET [BASE... --] PROFILE... [--junit FILE] [--json]\n"
	      "       stackview explain FILE --name NAME [FILTER...]\n"
	      "       stackview convert IN OUT [FILTER...] [--grouped] [--folded-style plain|flamegraph[-OPT,...]]\n"
	      "       stackview flame FILE [FILTER...] -o OUT.svg\n"
	      "       stackview diff BASE TEST [FILTER...] -o OUT.svg   (differential flame graph)\n"
	      "       stackview presets                    list the built-in presets and yours\n"
	      "       stackview events FILE [--event PAT] [--process P] [--thread T] [--start MS] [--end MS]\n"
	      "                    [--grep TEXT] [--fields A,B] [--limit N] [--json|--csv]   every event\n"
	      "       stackview report gcstats|jitstats|traceinfo FILE [--json] [--top N]   PerfView's reports\n"
	      "       stackview symbols FILE [--lookup ADDR[,ADDR...]] [--lines] [--json]   a PDB's\n"
	      "                    functions, or its source lines\n"
	      "       stackview annotate FILE --name FUNC [FILTER...] [--json]   a function's instructions and\n"
	      "                    their share of its samples (perf.data, perf script, pprof)\n"
	      "       stackview source FILE --name FUNC [FILTER...] [--source-path DIR] [--json]   Goto Source:\n"
	      "                    a function's source lines with their inclusive and exclusive cost (perf.data,\n"
	      "                    perf script, pprof, V8)\n"
	      "\n"
	      "FILE may be - (standard input). Formats: .perfView.xml, .perfView.json (+ .zip),\n"
	      "perf script text (*.data.txt, or piped), perf.data, perfcollect .trace.zip, Windows .etl and\n"
	      "PerfView's .etl.zip, .NET .nettrace, speedscope JSON, pprof (.pb.gz), V8 .cpuprofile and\n"
	      "Chrome traces, "
	      "Firefox Profiler / samply profiles, WindowsPerf sampling, DTrace stack\n"
	      "aggregations, macOS sample output, folded stacks.\n"
	      "\n",
	      f);
	fputs("Filter (PerfView's boxes):\n"
	      "  -g, --group PATS      GroupPats: ';'-separated, optional leading [comment], -> and =>\n"
	      "  -f, --fold PATS       FoldPats\n"
	      "  -p, --fold-pct N      Fold%\n"
	      "  -i, --inc PATS        IncPats (entries ANDed, '|' is OR)\n"
	      "  -x, --exc PATS        ExcPats\n"
	      "      --start MS        Start (ms; '--start \"100 200\"' sets Start and End)\n"
	      "      --end MS          End\n"
	      "      --preset NAME     a preset: yours ($XDG_CONFIG_HOME/stackview/presets) or a built-in\n"
	      "                        GroupPats one: 'group modules', 'group module entries',\n"
	      "                        'group full path module entries', 'group class entries',\n"
	      "                        'group classes', 'fold threads', 'no grouping'\n"
	      "      --scaling time|data   override the source's scaling policy\n"
	      "      --format NAME     input format (perfview-xml, perfview-json, perf-script, perf-data, etl,\n"
	      "                        nettrace, speedscope, pprof, chrome, firefox, wperf, dtrace, mac-sample,\n"
	      "                        folded);\n"
	      "                        default: detected\n"
	      "      --event NAME      the event (sample type, ETL event kind) to load (stackview info\n"
	      "                        lists them); with context switches: thread-time,\n"
	      "                        thread-time-readied, off-cpu, ready-time (PerfView's Thread Time);\n"
	      "                        ETL: net-virtualalloc, disk-io-time, net-os-heap;\n"
	      "                        .nettrace: thread-time (the default) or any event kind\n"
	      "      --kallsyms FILE   perf.data: kernel symbols (a copy of /proc/kallsyms, or .gz);\n"
	      "                        default: /proc/kallsyms when the recording's kernel is running\n"
	      "      --debug-dir DIR   perf.data: look for binaries and debug files by build id in\n"
	      "                        DIR/.build-id/ (repeatable; then ~/.debug, /usr/lib/debug)\n"
	      "      --perf-map-dir DIR  perf.data: where the JIT maps perf-PID.map are (default /tmp)\n"
	      "      --no-inline       perf.data: no inline frames in DWARF-unwound stacks\n"
	      "      --threads N       perf script and folded text: read with N threads, 1 or 2 (default:\n"
	      "                        two for 16 MiB or more when there are two CPUs; same result)\n"
	      "      --symfs DIR       perf.data, perf script, pprof: the recording's files under DIR\n"
	      "                        (perf's --symfs)\n"
	      "      --source-path P   source (Goto Source): where else source files are, ':'-separated:\n"
	      "                        DIR (DIR/path, DIR/name) or OLD=NEW (a path prefix replaced)\n"
	      "      --debuginfod URL  perf.data: files by build id from this debuginfod server (default:\n"
	      "                        the servers in DEBUGINFOD_URLS; none when it is unset)\n"
	      "      --symbol-path P   ETL: where PDBs are, as _NT_SYMBOL_PATH (default: that variable):\n"
	      "                        DIR;cache*DIR;srv*CACHE*URL (a PDB not in CACHE is downloaded)\n"
	      "      --offline         ETL: never download from symbol servers\n"
	      "      --symbol-modules M,N  ETL: look only these modules' symbols up (clr,ntdll; in the\n"
	      "                        terminal UI, Alt-S on a row looks its module's up)\n"
	      "      --priority PATS   .gcdump: PerfView's Priority patterns, PAT->NUM;... (first match\n"
	      "                        wins; replaces PerfView's defaults, which info shows)\n"
	      "      --net-timeout S   symbol servers, debuginfod: give up on one file after S seconds\n"
	      "                        (default 60)\n"
	      "      --net-total S     ... and on the network after S seconds in all (default 300)\n"
	      "      --by-cpu          perf, ETL: every stack under a 'CPU n' root frame (WPA's Cpu\n"
	      "                        column; thread time: a wait under the CPU it ended on)\n"
	      "      --select-group|--select-fold|--select-inc|--select-exc|--select-start|--select-end\n"
	      "                        diff: filter the inputs before diffing\n"
	      "Match (diff, overweight, check):\n"
	      "      --match 'OLD=>NEW'  rename frames on both sides first (';'-separated; OLD a pattern,\n"
	      "                        the part it matches replaced by NEW, $1 its first {group})\n"
	      "      --no-auto-match   keep names that differ only by a version or hash suffix apart\n"
	      "      --welch           Welch's t (each side its own variance) for the 95 % interval\n",
	      f);
	fputs("Output:\n"
	      "      --json            one JSON document (schema in the man page)\n"
	      "      --tsv             tab-separated rows\n"
	      "      --top N           first N rows (byname)\n"
	      "      --sort COL[:asc|:desc]  rows ordered by a column (name, exc, inc, exc_pct, inc_pct,\n"
	      "                        exc_count, inc_count, fold, first, last, max); trees: siblings\n"
	      "      --comm, --pid, --tid, --dsos, --symbols LIST  perf report's filters, as IncPats\n"
	      "      --min-pct N       leave out rows under N % of the total (perf's --percent-limit):\n"
	      "                        trees by Inc, with their subtrees; byname rows when both Exc\n"
	      "                        and Inc are under it\n"
	      "      --columns LIST    e.g. name,inc,inc_pct,exc,when\n"
	      "      --depth N         calltree/callers/callees: levels below the top (text and TSV:\n"
	      "                        500 unless given, with a note when the tree goes deeper)\n"
	      "      --focus NAME      the name for callers, callees, callercallee\n"
	      "      --name NAME       explain: the row to explain; annotate, source: the function\n"
	      "      --junit FILE      check: also write the verdicts as JUnit XML\n"
	      "  -o, --output FILE     flame / diff: write a flame graph SVG\n"
	      "      --layout perf     diff: baseline %% and delta points per name, as perf diff\n"
	      "      --timing          per-phase times on stderr\n"
	      "      --script FILE     view: run the terminal UI headless from a key script and print\n"
	      "                        its screens (see docs/tui.md)\n"
	      "      --size WxH        screen size for --script (default 100x30)\n"
	      "      --grouped         convert: write the names as the filtered view shows them\n"
	      "      --folded-style S  convert to .folded: plain, or flamegraph (what\n"
	      "                        stackcollapse-perf.pl --all writes: comm root, no module, _[k]\n"
	      "                        kernel, _[j] JIT frames), or flamegraph-OPT[,OPT...] for its\n"
	      "                        other options: default, kernel, jit, all, pid, tid, addrs\n"
	      "  -h, --help            this text\n"
	      "      --version         the version\n"
	      "Exit status: 0 ok, 1 unreadable input (check: a rule failed), 2 bad usage, pattern or\n"
	      "budget file, 3 output not written.\n",
	      f);
}

enum {
	O_START = 256, O_END, O_PRESET, O_SCALING, O_EVENT, O_JSON, O_TSV, O_TOP, O_COLUMNS, O_TIMING,
	O_PROGRESS, O_NOPROGRESS, O_FOCUS, O_DEPTH, O_VIEW, O_LAYOUT, O_FORMAT, O_VERSION,
	O_MATCH, O_NO_AUTO_MATCH, O_WELCH, O_JUNIT, O_NAME,
	O_SCRIPT, O_SIZE, O_KALLSYMS, O_NO_INLINE, O_THREADS, O_BY_CPU, O_LOOKUP, O_LINES, O_SYMBOL_PATH, O_OFFLINE, O_PRIORITY, O_SYMBOL_MODULES, O_PROCESS, O_THREAD, O_GREP, O_LIMIT, O_CSV, O_NET_TIMEOUT, O_NET_TOTAL, O_SYMFS, O_SOURCE_PATH, O_DEBUGINFOD, O_DEBUG_DIR, O_PERF_MAP_DIR, O_GROUPED, O_FOLDED_STYLE, O_SEL_GROUP, O_SEL_FOLD, O_SEL_INC, O_SEL_EXC, O_SEL_START, O_SEL_END, O_MIN_PCT, O_SORT, O_COMM, O_PID, O_TID, O_DSOS, O_SYMBOLS, O_PERF_G, O_PERF_F,
};

static const struct option longopts[] = {
	{ "group", required_argument, NULL, 'g' },
	{ "fold", required_argument, NULL, 'f' },
	{ "fold-pct", required_argument, NULL, 'p' },
	{ "inc", required_argument, NULL, 'i' },
	{ "exc", required_argument, NULL, 'x' },
	{ "start", required_argument, NULL, O_START },
	{ "end", required_argument, NULL, O_END },
	{ "preset", required_argument, NULL, O_PRESET },
	{ "scaling", required_argument, NULL, O_SCALING },
	{ "event", required_argument, NULL, O_EVENT },
	{ "kallsyms", required_argument, NULL, O_KALLSYMS },
	{ "no-inline", no_argument, NULL, O_NO_INLINE },
	{ "threads", required_argument, NULL, O_THREADS },
	{ "by-cpu", no_argument, NULL, O_BY_CPU },
	{ "lookup", required_argument, NULL, O_LOOKUP },
	{ "lines", no_argument, NULL, O_LINES },
	{ "symbol-path", required_argument, NULL, O_SYMBOL_PATH },
	{ "offline", no_argument, NULL, O_OFFLINE },
	{ "priority", required_argument, NULL, O_PRIORITY },
	{ "symbol-modules", required_argument, NULL, O_SYMBOL_MODULES },
	{ "process", required_argument, NULL, O_PROCESS },
	{ "thread", required_argument, NULL, O_THREAD },
	{ "grep", required_argument, NULL, O_GREP },
	{ "limit", required_argument, NULL, O_LIMIT },
	{ "csv", no_argument, NULL, O_CSV },
	{ "net-timeout", required_argument, NULL, O_NET_TIMEOUT },
	{ "net-total", required_argument, NULL, O_NET_TOTAL },
	{ "symfs", required_argument, NULL, O_SYMFS },
	{ "source-path", required_argument, NULL, O_SOURCE_PATH },
	{ "debuginfod", required_argument, NULL, O_DEBUGINFOD },
	{ "debug-dir", required_argument, NULL, O_DEBUG_DIR },
	{ "perf-map-dir", required_argument, NULL, O_PERF_MAP_DIR },
	{ "select-group", required_argument, NULL, O_SEL_GROUP },
	{ "select-fold", required_argument, NULL, O_SEL_FOLD },
	{ "select-inc", required_argument, NULL, O_SEL_INC },
	{ "select-exc", required_argument, NULL, O_SEL_EXC },
	{ "select-start", required_argument, NULL, O_SEL_START },
	{ "select-end", required_argument, NULL, O_SEL_END },
	{ "json", no_argument, NULL, O_JSON },
	{ "tsv", no_argument, NULL, O_TSV },
	{ "top", required_argument, NULL, O_TOP },
	{ "min-pct", required_argument, NULL, O_MIN_PCT },
	{ "percent-limit", required_argument, NULL, O_MIN_PCT },
	{ "sort", required_argument, NULL, O_SORT },
	{ "comm", required_argument, NULL, O_COMM },
	{ "comms", required_argument, NULL, O_COMM },
	{ "pid", required_argument, NULL, O_PID },
	{ "tid", required_argument, NULL, O_TID },
	{ "dsos", required_argument, NULL, O_DSOS },
	{ "symbols", required_argument, NULL, O_SYMBOLS },
	{ "call-graph", required_argument, NULL, O_PERF_G },
	{ "fields", required_argument, NULL, O_PERF_F },
	{ "columns", required_argument, NULL, O_COLUMNS },
	{ "timing", no_argument, NULL, O_TIMING },
	{ "progress", no_argument, NULL, O_PROGRESS },
	{ "no-progress", no_argument, NULL, O_NOPROGRESS },
	{ "focus", required_argument, NULL, O_FOCUS },
	{ "depth", required_argument, NULL, O_DEPTH },
	{ "view", required_argument, NULL, O_VIEW },
	{ "layout", required_argument, NULL, O_LAYOUT },
	{ "format", required_argument, NULL, O_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "script", required_argument, NULL, O_SCRIPT },
	{ "grouped", no_argument, NULL, O_GROUPED },
	{ "folded-style", required_argument, NULL, O_FOLDED_STYLE },
	{ "size", required_argument, NULL, O_SIZE },
	{ "match", required_argument, NULL, O_MATCH },
	{ "no-auto-match", no_argument, NULL, O_NO_AUTO_MATCH },
	{ "welch", no_argument, NULL, O_WELCH },
	{ "junit", required_argument, NULL, O_JUNIT },
	{ "name", required_argument, NULL, O_NAME },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, O_VERSION },
	{ NULL, 0, NULL, 0 },
};




/* Directories joined with ':' (libdwfl's debuginfo path syntax); a ':' in a name cannot be
 * represented and is refused. A relative one is made absolute: libdwfl would take it as
 * relative to each binary's own directory. */
static bool add_debug_dir(cli_opts *o, const char *dir)
{
	char abs[PATH_MAX];
	if (dir[0] && dir[0] != '/') {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd)) || snprintf(abs, sizeof(abs), "%s/%s", cwd, dir) >= (int)sizeof(abs))
			return false;
		dir = abs;
	}
	size_t used = strlen(o->debug_buf), n = strlen(dir);
	if (!n || strchr(dir, ':') || used + n + 2 > sizeof(o->debug_buf))
		return false;
	if (used)
		o->debug_buf[used++] = ':';
	memcpy(o->debug_buf + used, dir, n + 1); /* fits: checked above */
	o->debug_dirs = o->debug_buf;
	return true;
}

/* Whether arg is an option whose value is the next argument ("-g", "--group", "--gro"), so
 * that a `--` after it is that value, not the separator of base and test files. */
static bool takes_value(const char *arg)
{
	if (arg[0] != '-')
		return false;
	if (arg[1] && arg[1] != '-' && !arg[2])
		return strchr("gfpixo", arg[1]) != NULL;
	if (arg[1] != '-' || !arg[2] || strchr(arg, '='))
		return false;
	size_t n = strlen(arg + 2);
	for (const struct option *l = longopts; l->name; l++)
		if (!strncmp(l->name, arg + 2, n))
			return l->has_arg == required_argument;
	return false;
}

static bool parse_long(const char *s, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < 0)
		return false;
	*out = v;
	return true;
}

/* --folded-style: plain, flamegraph (stackcollapse-perf.pl --all), or flamegraph- and the
 * script's options joined by ','. */
static int parse_folded_style(cli_opts *o, const char *s)
{
	static const struct {
		const char *name;
		unsigned flags;
	} opts[] = { { "default", 0 },
		     { "kernel", SV_COLLAPSE_KERNEL },
		     { "jit", SV_COLLAPSE_JIT },
		     { "all", SV_COLLAPSE_KERNEL | SV_COLLAPSE_JIT },
		     { "pid", SV_COLLAPSE_PID },
		     { "tid", SV_COLLAPSE_TID },
		     { "addrs", SV_COLLAPSE_ADDRS } };
	o->folded_flamegraph = false;
	o->collapse = 0;
	if (strcmp(s, "plain") == 0)
		return 0;
	if (strcmp(s, "flamegraph") == 0) {
		o->folded_flamegraph = true;
		o->collapse = SV_COLLAPSE_KERNEL | SV_COLLAPSE_JIT;
		return 0;
	}
	if (strncmp(s, "flamegraph-", 11) != 0 || !s[11])
		return -1;
	for (const char *p = s + 11; *p;) {
		size_t n = strcspn(p, ",");
		size_t k = 0;
		while (k < sizeof(opts) / sizeof(opts[0]) && !(strlen(opts[k].name) == n && strncmp(opts[k].name, p, n) == 0))
			k++;
		if (k == sizeof(opts) / sizeof(opts[0]))
			return -1;
		o->collapse |= opts[k].flags;
		p += n;
		if (*p == ',' && !*++p)
			return -1;
	}
	o->folded_flamegraph = true;
	return 0;
}

/* The columns --sort takes, as its messages list them. */
#define SORT_KEYS "name, exc, inc, exc_pct, inc_pct, exc_count, inc_count, fold, first, last, max"

/* --sort COLUMN[:asc|:desc]: rows ordered by a column (numbers largest first, names A-Z);
 * perf report's keys, which group rather than order, are explained. */
static int parse_sort(cli_opts *o, const char *arg)
{
	char key[64];
	snprintf(key, sizeof(key), "%s", arg);
	char *colon = strchr(key, ':');
	bool asc = false, dir = false;
	if (colon) {
		*colon = '\0';
		dir = true;
		asc = !strcmp(colon + 1, "asc");
		if (!asc && strcmp(colon + 1, "desc")) {
			fprintf(stderr, "stackview: --sort %s: the order is :asc or :desc\n", arg);
			return EXIT_USAGE;
		}
	}
	static const char *const perf_keys[] = { "comm", "dso", "sym", "symbol", "pid", "tid", "overhead", "parent", "cpu",
						 "srcline", "period" };
	for (size_t i = 0; i < sizeof(perf_keys) / sizeof(perf_keys[0]); i++)
		if (!strncmp(key, perf_keys[i], strlen(perf_keys[i])) &&
		    (key[strlen(perf_keys[i])] == '\0' || key[strlen(perf_keys[i])] == ',')) {
			fprintf(stderr, "stackview: --sort %s is perf report's grouping; here ByName is one row a symbol "
					"(module!function), --group '{%%}!->module $1' makes one a module, process and thread "
					"frames keep commands and pids apart; --sort orders rows by a column: " SORT_KEYS "\n",
				arg);
			return EXIT_USAGE;
		}
	sv_col col = sv_column_find(key);
	if ((int)col < 0 || col >= SV_COL_COUNT || !sv_column_get(col)->sortable) {
		fprintf(stderr, "stackview: --sort %s: no such column to sort by (" SORT_KEYS ")\n",
			arg);
		return EXIT_USAGE;
	}
	o->sort_col = (int)col;
	o->sort_asc = dir ? asc : col == SV_COL_NAME;
	return 0;
}

/* A regular expression that matches text literally. */
static void re_quote(char *out, size_t cap, const char *s, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 3 < cap; i++) {
		if (strchr("\\^$.|?*+()[]{}", s[i]))
			out[o++] = '\\';
		out[o++] = s[i];
	}
	out[o] = '\0';
}

/* perf report's --comm, --pid, --tid, --dsos and --symbols as IncPats entries (raw regular
 * expressions, '@', so that a name matches whole): the entries of one option are or-ed,
 * those of different options and-ed with --inc. */
static int add_perf_filter(cli_opts *o, int which, const char *list)
{
	char alts[3000];
	size_t n = 0;
	for (const char *p = list; *p && n < sizeof(alts) - 8;) {
		size_t l = strcspn(p, ",");
		if (l) {
			if ((which == O_PID || which == O_TID) && strspn(p, "0123456789") < l) {
				fprintf(stderr, "stackview: --%s needs numbers separated by commas, not '%s'\n",
					which == O_PID ? "pid" : "tid", list);
				return EXIT_USAGE;
			}
			char q[1024];
			re_quote(q, sizeof(q), p, l);
			n += (size_t)snprintf(alts + n, sizeof(alts) - n, "%s%s", n ? "|" : "", q);
		}
		p += l + (p[l] == ',');
	}
	if (!n || n >= sizeof(alts) - 8) {
		fprintf(stderr, "stackview: the option needs a comma-separated list (of at most a few thousand bytes)\n");
		return EXIT_USAGE;
	}
	/* a comm is a process's (after its main thread) or a thread's, as perf's --comms */
	char re[8192];
	int w = which == O_COMM   ? snprintf(re, sizeof(re), "@^(Process (%s) \\(|Thread \\([0-9]+\\) (%s)$)", alts, alts)
		: which == O_PID  ? snprintf(re, sizeof(re), "@^Process .* \\((%s)\\)$", alts)
		: which == O_TID  ? snprintf(re, sizeof(re), "@^Thread \\((%s)\\)", alts)
		: which == O_DSOS ? snprintf(re, sizeof(re), "@(^|/)(%s)!", alts)
				  : snprintf(re, sizeof(re), "@!(%s)$", alts);
	size_t old = o->perf_inc ? strlen(o->perf_inc) : 0;
	char *m = w > 0 && (size_t)w < sizeof(re) ? realloc(o->perf_inc, old + (size_t)w + 2) : NULL;
	if (!m)
		return EXIT_INPUT;
	if (old)
		m[old++] = ';';
	memcpy(m + old, re, (size_t)w + 1);
	o->perf_inc = m;
	return 0;
}

int cli_parse(cli_opts *o, int argc, char **argv)
{
	memset(o, 0, sizeof(*o));
	o->top = -1;
	o->width = 100;
	o->height = 30;
	o->depth = -1;
	o->progress = -1;
	o->sort_col = -1;
	o->ev_limit = -1;
	int first = 1;
	const cli_command *cmd = argc > 1 ? cli_command_find(argv[1]) : NULL;
	if (cmd) {
		first = 2;
	} else {
		/* Not a subcommand: a file for the default one, unless it is a typo of a command. */
		const char *names[32];
		size_t n = cli_command_names(names, 32);
		char near[512];
		if (argc > 1 && cli_suggest_command(argv[1], names, n, near, sizeof(near))) {
			fprintf(stderr, "stackview: '%s' is neither a command nor a file; did you mean %s?\n", argv[1], near);
			return EXIT_USAGE;
		}
		cmd = cli_command_default();
	}
	o->cmd = cmd->name;
	o->split = -1;
	/* `--` between base and test files (diff BASE... -- TEST...): kept as a file marker, as
	 * getopt would drop it. */
	static char split_marker[] = "\x1f--";
	for (int i = first; i < argc; i++)
		if (!strcmp(argv[i], "--") && !takes_value(argv[i - 1])) {
			argv[i] = split_marker;
			break;
		}
	optind = first;
	opterr = 0;
	int c;
	long n;
	while ((c = getopt_long(argc, argv, ":g:f:p:i:x:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'g': o->box[SV_BOX_GROUP] = optarg; break;
		case 'f': o->box[SV_BOX_FOLD] = optarg; break;
		case 'p': o->box[SV_BOX_FOLD_PCT] = optarg; break;
		case 'i': o->box[SV_BOX_INC] = optarg; break;
		case 'x': o->box[SV_BOX_EXC] = optarg; break;
		case O_START: o->box[SV_BOX_START] = optarg; break;
		case O_END: o->box[SV_BOX_END] = optarg; break;
		case O_SEL_GROUP: o->select_box[SV_BOX_GROUP] = optarg; break;
		case O_SEL_FOLD: o->select_box[SV_BOX_FOLD] = optarg; break;
		case O_SEL_INC: o->select_box[SV_BOX_INC] = optarg; break;
		case O_SEL_EXC: o->select_box[SV_BOX_EXC] = optarg; break;
		case O_SEL_START: o->select_box[SV_BOX_START] = optarg; break;
		case O_SEL_END: o->select_box[SV_BOX_END] = optarg; break;
		case O_PRESET:
			o->preset = optarg;
			break;
		case O_SCALING:
			if (strcmp(optarg, "time") && strcmp(optarg, "data")) {
				fprintf(stderr, "stackview: --scaling must be 'time' or 'data'\n");
				return EXIT_USAGE;
			}
			o->scaling = optarg;
			break;
		case O_EVENT: o->event = optarg; break;
		case O_KALLSYMS: o->kallsyms = optarg; break;
		case O_NO_INLINE: o->no_inline = true; break;
		case O_THREADS:
			if (!parse_long(optarg, &n) || n < 1 || n > 2) {
				fprintf(stderr, "stackview: --threads needs 1 or 2\n");
				return EXIT_USAGE;
			}
			o->threads = (unsigned)n;
			break;
		case O_BY_CPU: o->by_cpu = true; break;
		case O_SYMBOL_PATH: o->symbol_path = optarg; break;
		case O_OFFLINE: o->offline = true; break;
		case O_PRIORITY: o->priority = optarg; break;
		case O_SYMBOL_MODULES: o->symbol_modules = optarg; break;
		case O_PROCESS: o->ev_process = optarg; break;
		case O_THREAD: o->ev_thread = optarg; break;
		case O_GREP: o->ev_grep = optarg; break;
		case O_CSV: o->out = OUT_CSV; break;
		case O_LIMIT:
			if (!parse_long(optarg, &n)) {
				fprintf(stderr, "stackview: --limit needs a non-negative number\n");
				return EXIT_USAGE;
			}
			o->ev_limit = n;
			break;
		case O_NET_TIMEOUT:
		case O_NET_TOTAL: {
			char *end;
			double s = strtod(optarg, &end);
			if (end == optarg || *end || !(s > 0) || s > 86400) {
				fprintf(stderr, "stackview: --%s needs seconds (more than 0, at most 86400)\n",
					c == O_NET_TIMEOUT ? "net-timeout" : "net-total");
				return EXIT_USAGE;
			}
			*(c == O_NET_TIMEOUT ? &o->net_timeout : &o->net_total) = s;
			break;
		}
		case O_SYMFS: o->symfs = optarg; break;
		case O_SOURCE_PATH: o->source_path = optarg; break;
		case O_DEBUGINFOD: /* libdebuginfod reads its servers from the environment */
			if (setenv("DEBUGINFOD_URLS", optarg, 1)) {
				fprintf(stderr, "stackview: --debuginfod: cannot set DEBUGINFOD_URLS\n");
				return EXIT_USAGE;
			}
			break;
		case O_LINES:
			o->lines = true;
			break;
		case O_LOOKUP:
			if (o->nlookup >= CLI_MAX_FILES) {
				fprintf(stderr, "stackview: more than %d --lookup options\n", CLI_MAX_FILES);
				return EXIT_USAGE;
			}
			o->lookup[o->nlookup++] = optarg;
			break;
		case O_PERF_MAP_DIR: o->perf_map_dir = optarg; break;
		case O_DEBUG_DIR:
			if (!add_debug_dir(o, optarg)) {
				fprintf(stderr, "stackview: --debug-dir: too many or too long directories\n");
				return EXIT_USAGE;
			}
			break;
		case O_JSON: o->out = OUT_JSON; break;
		case O_TSV: o->out = OUT_TSV; break;
		case O_TOP:
			if (!parse_long(optarg, &n)) {
				fprintf(stderr, "stackview: --top needs a non-negative number\n");
				return EXIT_USAGE;
			}
			o->top = n;
			break;
		case O_SORT: {
			int r = parse_sort(o, optarg);
			if (r)
				return r;
			break;
		}
		case O_PID:
		case O_TID:
			if (cmd->id == CLI_CMD_EVENTS) { /* events: the process or thread shown */
				*(c == O_PID ? &o->ev_process : &o->ev_thread) = optarg;
				break;
			}
			/* fall through */
		case O_COMM:
		case O_DSOS:
		case O_SYMBOLS: {
			int r = add_perf_filter(o, c, optarg);
			if (r)
				return r;
			break;
		}
		case O_PERF_F:
			if (cmd->id == CLI_CMD_EVENTS) {
				o->ev_fields = optarg;
				break;
			}
			/* fall through */
		case O_PERF_G:
			fprintf(stderr, "stackview: --%s is perf report's option; here %s\n", c == O_PERF_G ? "call-graph" : "fields",
				c == O_PERF_G ? "the views are the call graph: calltree (callers at the top), callers and callees of "
						"--focus NAME, and Fold%% (--fold-pct) hides the small branches"
					      : "--columns LIST chooses the columns (stackview --help lists them)");
			return EXIT_USAGE;
		case O_MIN_PCT:
			if (!sv_parse_number(optarg, &o->min_pct) || !(o->min_pct >= 0) || o->min_pct > 100) {
				fprintf(stderr, "stackview: --min-pct needs a percentage from 0 to 100, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case O_DEPTH:
			if (!parse_long(optarg, &n)) {
				fprintf(stderr, "stackview: --depth needs a non-negative number\n");
				return EXIT_USAGE;
			}
			o->depth = n;
			break;
		case O_COLUMNS: {
			sv_error err;
			sv_error_clear(&err);
			if (sv_grid_parse_columns(optarg, o->cols, &o->ncols, &err)) {
				fprintf(stderr, "stackview: --columns: %s\n", err.msg);
				return EXIT_USAGE;
			}
			o->columns = optarg;
			break;
		}
		case O_TIMING: o->timing = true; break;
		case O_PROGRESS: o->progress = 1; break;
		case O_NOPROGRESS: o->progress = 0; break;
		case O_FOCUS: o->focus = optarg; break;
		case O_VIEW: o->view = optarg; break;
		case O_LAYOUT:
			if (strcmp(optarg, "perf") && strcmp(optarg, "perfview")) {
				fprintf(stderr, "stackview: --layout is 'perfview' (the default: the diff's own views) or 'perf' "
						"(baseline %% and delta points, as perf diff)\n");
				return EXIT_USAGE;
			}
			o->perf_layout = !strcmp(optarg, "perf");
			break;
		case O_FORMAT: o->format = optarg; break;
		case 'o': o->output = optarg; break;
		case O_SCRIPT: o->script = optarg; break;
		case O_GROUPED: o->grouped = true; break;
		case O_MATCH: o->match = optarg; break;
		case O_NO_AUTO_MATCH: o->no_auto_match = true; break;
		case O_WELCH: o->welch = true; break;
		case O_JUNIT: o->junit = optarg; break;
		case O_NAME: o->name = optarg; break;
		case O_FOLDED_STYLE:
			if (parse_folded_style(o, optarg)) {
				fprintf(stderr, "stackview: --folded-style must be 'plain', 'flamegraph' (= flamegraph-all) or "
						"'flamegraph-' and options of stackcollapse-perf.pl joined by ',': default, "
						"kernel, jit, all, pid, tid, addrs (flamegraph-pid,all)\n");
				return EXIT_USAGE;
			}
			break;
		case O_SIZE:
			if (sscanf(optarg, "%dx%d", &o->width, &o->height) != 2 || o->width < 20 || o->height < 10 ||
			    o->width > 1000 || o->height > 1000) {
				fprintf(stderr, "stackview: --size must be WxH, at least 20x10\n");
				return EXIT_USAGE;
			}
			break;
		case 'h': cli_usage(stdout); return -1;
		case O_VERSION: printf("stackview %s\n", SV_VERSION); return -1;
		case ':':
			fprintf(stderr, "stackview: option '%s' needs a value\n", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			fprintf(stderr, "stackview: unknown option '%s' (see stackview --help)\n", argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	for (int i = optind; i < argc; i++) {
		if (argv[i] == split_marker) {
			if (!(cmd->needs & CLI_SPLITS) || o->split >= 0) {
				fprintf(stderr, "stackview: unexpected argument '--'%s\n",
					o->split >= 0 ? "" : " (it separates base and test files: diff, overweight, check)");
				return EXIT_USAGE;
			}
			o->split = o->nfiles;
			continue;
		}
		if (o->nfiles == ((cmd->needs & CLI_SPLITS) ? CLI_MAX_FILES : 2)) {
			fprintf(stderr, "stackview: unexpected argument '%s'\n", argv[i]);
			return EXIT_USAGE;
		}
		o->files[o->nfiles++] = argv[i];
	}
	/* perf report's habit: `stackview -i perf.data` names the input, not IncPats (-i here),
	 * when no file was given and the text names an existing file, which no pattern means. */
	struct stat st;
	const char *inc = o->box[SV_BOX_INC];
	if (inc && o->nfiles == 0 && cmd->max_files > 0 && stat(inc, &st) == 0 && S_ISREG(st.st_mode)) {
		fprintf(stderr, "stackview: note: reading %s, as perf report's -i does (IncPats is --inc PATTERN)\n", inc);
		o->files[o->nfiles++] = inc;
		o->box[SV_BOX_INC] = NULL;
	}
	/* perf report's filters join IncPats: one more entry each (and-ed with --inc's) */
	if (o->perf_inc && o->box[SV_BOX_INC] && o->box[SV_BOX_INC][0]) {
		size_t a = strlen(o->box[SV_BOX_INC]), b = strlen(o->perf_inc);
		char *m = malloc(a + b + 2);
		if (!m)
			return EXIT_INPUT;
		memcpy(m, o->box[SV_BOX_INC], a);
		m[a] = ';';
		memcpy(m + a + 1, o->perf_inc, b + 1);
		free(o->perf_inc);
		o->perf_inc = m;
	}
	if (o->perf_inc)
		o->box[SV_BOX_INC] = o->perf_inc;
	/* perf's build-id cache ($PERF_BUILDID_DIR, default ~/.debug) after the user's dirs. */
	const char *cache = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	char buf[2048];
	if ((cache && *cache) || (home && *home)) {
		snprintf(buf, sizeof(buf), "%s%s", cache && *cache ? cache : home, cache && *cache ? "" : "/.debug");
		(void)add_debug_dir(o, buf);
	}
	return 0;
}
