# SPDX-License-Identifier: MIT
# stackview — one non-recursive Makefile. Out-of-tree builds in build/<variant>/.
#   make                 build build/release/stackview
#   make test            unit, conformance, golden, CLI and TUI tests from the checkout alone;
#                        ends with "N passed, N failed"; T=group[,group] runs only those groups
#   make test-extended   the checks over the large shared data in ../shared/data (perf, ETL)
#   make SAN=address,undefined test   the same under sanitizers (build/san/)
#   make bench           benchmark (see tests/bench/)
#   make deps            apt-get install what the build and the demo need (Debian 12)
#   make deps-test       ... and what the tests add (make test and test-extended ask for it)
#   make demo            deps + build + open the tutorial profile
#   make install         PREFIX=/usr/local DESTDIR=
#   make check-layering  lib/ and formats/ include only what their layer may

PREFIX ?= /usr/local
DESTDIR ?=
VERSION := 0.1.0
V ?= 0
Q := $(if $(filter 1,$(V)),,@)

CC ?= cc
# Each layer is compiled with its own libraries' flags only, so the compiler keeps the layers
# apart (design.md "Layers"): lib/ sees pcre2, formats/ the format libraries, tui/ ncursesw.
LIB_PKGS := libpcre2-8
FMT_PKGS := libxml-2.0 json-c libzip zlib libdw libzstd libprotobuf-c libcurl libmspack libdebuginfod capstone libtraceevent
PKGS := $(LIB_PKGS) $(FMT_PKGS)
LIB_PKG_CFLAGS := $(shell pkg-config --cflags $(LIB_PKGS) 2>/dev/null)
FMT_PKG_CFLAGS := $(shell pkg-config --cflags $(FMT_PKGS) 2>/dev/null)
TUI_PKGS := ncursesw
TUI_CFLAGS := $(shell pkg-config --cflags $(TUI_PKGS) 2>/dev/null)
TUI_LIBS := $(shell pkg-config --libs $(TUI_PKGS) 2>/dev/null || echo -lncursesw)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -liberty

WARN := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
	-Wcast-qual -Wwrite-strings -Wundef -Wpointer-arith -Wvla -Wimplicit-fallthrough -Werror
BASE_CFLAGS := -std=c17 -pthread -D_GNU_SOURCE -fPIC -fvisibility=hidden $(WARN) -Ilib/include -Ilib/internal -DSV_VERSION='"$(VERSION)"'

ifneq ($(FUZZ),)
VARIANT := fuzz
OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -DSV_ARENA_DEBUG
LDSAN := -fsanitize=address,undefined
else ifneq ($(SAN),)
VARIANT := san
OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=$(SAN) -fno-sanitize-recover=all -DSV_ARENA_DEBUG
LDSAN := -fsanitize=$(SAN)
else
VARIANT := release
OPT := -O2 -g
LDSAN :=
endif
CFLAGS ?=
ALL_CFLAGS := $(BASE_CFLAGS) $(OPT) $(CFLAGS)
LDFLAGS ?=
B := build/$(VARIANT)

LIB_SRCS := lib/status.c lib/arena.c lib/array.c lib/boxtext.c lib/idmap.c lib/keysort.c lib/strtab.c lib/params.c lib/source.c lib/source_sink.c lib/source_sums.c lib/source_meta.c lib/source_loc.c lib/annotate.c \
	lib/pattern.c lib/view.c lib/view_like.c lib/view_tree.c lib/view_kids.c lib/view_byname.c lib/view_names.c lib/view_query.c lib/when.c lib/aggview.c lib/commands.c lib/derive.c lib/copier.c lib/compare.c lib/compare_stats.c lib/compare_names.c lib/compare_rows.c lib/budget.c lib/rows.c lib/grid.c lib/utf8.c lib/flame.c lib/preset.c \
	lib/thread_time.c lib/heap_graph.c lib/cpu_root.c lib/evlog.c lib/report.c lib/report_text.c
FMT_SRCS := $(addprefix formats/core/,input.c lines.c side_file.c decode.c registry.c json_stream.c two_parts.c symtab.c symbol_open.c hold.c net.c \
		writer.c escape.c) \
	$(addprefix formats/perf/,script.c script_read.c script_tt.c script_events.c script_frames.c script_code.c script_lex.c \
		common.c names.c data.c data_events.c records.c record_sort.c frames.c stacks.c tasks.c sym.c sym_maps.c \
		unwind.c disasm.c dwarf_inline.c code_text.c annotate.c source_view.c) \
	$(addprefix formats/windows/,etl.c etl_common.c etl_stream.c etl_events.c etl_kinds.c etl_manifest.c etl_decode.c etl_stacks.c etl_list.c etl_list_kernel.c clr_events.c etl_emit.c etl_symbols.c etl_code.c \
		symsrv.c xpress.c pdb.c pe.c pe_disasm.c msvc_demangle.c nettrace.c nettrace_meta.c nettrace_blocks.c \
		nettrace_emit.c nettrace_list.c gcdump.c) \
	$(addprefix formats/json/,perfview_json.c speedscope.c pprof.c pprof_write.c chrome.c chrome_legacy.c chrome_frame.c gecko.c) \
	$(addprefix formats/text/,perfview_xml.c perfview_xml_attr.c perfview_xml_stacks.c perfview_xml_gui.c \
		perfview_xml_write.c folded.c collapse.c wperf.c heaptrack.c dtrace.c mac_sample.c flame_svg.c)
TUI_SRCS := tui/screen.c tui/keymap.c tui/app.c tui/commands.c tui/list.c tui/nav.c tui/editline.c tui/dlg_presets.c tui/dlg_priority.c tui/dlg_evlist.c tui/evread.c tui/dlg_report.c tui/dlg_annotate.c tui/symbols.c tui/dlg_picker.c \
	tui/dlg_columns.c tui/dlg_events.c tui/dlg_help.c tui/tab_flame.c tui/tab_notes.c tui/layout.c tui/draw.c tui/run.c tui/term.c
CMD_SRCS := cmd/main.c cmd/commands.c cmd/load.c cmd/view.c cmd/info.c cmd/events.c cmd/report.c cmd/annotate.c cmd/diff.c cmd/convert.c cmd/tui.c cmd/options.c \
	cmd/output.c cmd/check.c cmd/explain.c cmd/symbols.c cmd/json_out.c cmd/outbuf.c cmd/presets.c cmd/progress.c cmd/signals.c cmd/suggest.c
FUZZ_TARGETS := perfview_xml perfview_json perf_script perf_data folded pattern etl xpress speedscope budget pprof chrome wperf dtrace mac_sample gecko pdb nettrace symsrv heaptrack gcdump disasm inflate
FUZZ_SECONDS ?= 60
UNIT_TESTS := $(basename $(notdir $(wildcard tests/unit/test_*.c)))

LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o)
FMT_OBJS := $(FMT_SRCS:%.c=$(B)/%.o)
GEN_OBJS := $(B)/gen/pprof.pb-c.o
TUI_OBJS := $(TUI_SRCS:%.c=$(B)/%.o)
CMD_OBJS := $(CMD_SRCS:%.c=$(B)/%.o)
LIBA := $(B)/libstackview.a
FMTA := $(B)/libstackview-formats.a
TUIA := $(B)/libstackview-tui.a
BIN := $(B)/stackview
UNIT_BINS := $(UNIT_TESTS:%=$(B)/tests/unit/%)
REPLAY_BINS := $(FUZZ_TARGETS:%=$(B)/tests/fuzz/replay_%)
FUZZ_BINS := $(FUZZ_TARGETS:%=$(B)/tests/fuzz/fuzz_%)

.PHONY: all test test-extended unit bench deps deps-test demo install check-layering check-headers check-exports check-cycles \
	check-tree clean distclean
all: $(BIN)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(LIBA): $(LIB_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^
$(FMTA): $(FMT_OBJS) $(GEN_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^
$(TUIA): $(TUI_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^
$(LIB_OBJS): ALL_CFLAGS += $(LIB_PKG_CFLAGS)
$(FMT_OBJS): ALL_CFLAGS += -Iformats/include -Iformats -I$(B)/gen $(FMT_PKG_CFLAGS)

# pprof's messages: C code generated by protoc-c from formats/json/pprof.proto, built into the
# formats library.
$(B)/gen/pprof.pb-c.c $(B)/gen/pprof.pb-c.h &: formats/json/pprof.proto
	@mkdir -p $(B)/gen
	@$(if $(Q),echo "  PROTOC  $<")
	$(Q)protoc-c --c_out=$(B)/gen -Iformats/json $<
$(B)/gen/pprof.pb-c.o: $(B)/gen/pprof.pb-c.c $(B)/gen/pprof.pb-c.h
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) $(FMT_PKG_CFLAGS) -I$(B)/gen -c $< -o $@
$(B)/formats/json/pprof.o $(B)/formats/json/pprof_write.o: $(B)/gen/pprof.pb-c.h
$(TUI_OBJS): ALL_CFLAGS += -Itui $(TUI_CFLAGS)
$(CMD_OBJS): ALL_CFLAGS += -Iformats/include -Itui $(PKG_CFLAGS) $(TUI_CFLAGS)
TEST_CFLAGS = $(ALL_CFLAGS) -Iformats/include -Iformats $(PKG_CFLAGS)
$(BIN): $(CMD_OBJS) $(TUIA) $(FMTA) $(LIBA)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDSAN) $(LDFLAGS) -o $@ $(CMD_OBJS) $(TUIA) $(FMTA) $(LIBA) $(PKG_LIBS) $(TUI_LIBS) -pthread -lm
$(B)/libstackview.so: $(LIB_OBJS) $(FMT_OBJS) $(GEN_OBJS)
	$(Q)$(CC) -shared $(LDSAN) -Wl,-soname,libstackview.so.0 -Wl,--exclude-libs,ALL -o $@ $^ $(PKG_LIBS) -pthread -lm

$(B)/tests/unit/%: tests/unit/%.c $(FMTA) $(LIBA)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(TEST_CFLAGS) -Ilib -MMD -MP $< -o $@ $(LDSAN) $(FMTA) $(LIBA) $(PKG_LIBS) -lcmocka -pthread -lm

# the terminal UI's unit tests link it too
$(B)/tests/unit/test_tui_%: tests/unit/test_tui_%.c $(TUIA) $(FMTA) $(LIBA)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(TEST_CFLAGS) -Ilib -Itui $(TUI_CFLAGS) -MMD -MP $< -o $@ $(LDSAN) $(TUIA) $(FMTA) $(LIBA) $(PKG_LIBS) $(TUI_LIBS) -lcmocka -pthread -lm

# Fuzz targets: replayed over their corpora by `make test` (any variant), run by `make fuzz`.
$(B)/tests/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz_common.h $(FMTA) $(LIBA)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(TEST_CFLAGS) -Wno-cast-qual $< tests/fuzz/replay.c -o $@ $(LDSAN) $(FMTA) $(LIBA) $(PKG_LIBS) -pthread -lm
$(B)/tests/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(FMTA) $(LIBA)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(TEST_CFLAGS) -Wno-cast-qual $< -o $@ -fsanitize=fuzzer,address,undefined $(FMTA) $(LIBA) $(PKG_LIBS) -pthread -lm

$(B)/tests/bench/gen: tests/bench/gen.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -O2 $< -o $@ $(LDSAN) -pthread -lm
$(B)/tests/bench/memtouch: tests/bench/memtouch.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -O2 $< -o $@ $(LDSAN)
$(B)/tests/bench/engine: tests/bench/engine.c $(FMTA) $(LIBA)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(TEST_CFLAGS) -O2 $< -o $@ $(LDSAN) $(FMTA) $(LIBA) $(PKG_LIBS) -pthread -lm

unit: $(UNIT_BINS)

test: deps-test $(BIN) $(UNIT_BINS) $(REPLAY_BINS) $(B)/tests/bench/gen check-layering check-headers check-exports check-cycles check-tree
	$(Q)SV_BUILD=$(B) SV_VARIANT=$(VARIANT) T=$(T) bash tests/run.sh
test-extended: deps-test $(BIN) $(UNIT_BINS)
	$(Q)SV_BUILD=$(B) SV_VARIANT=$(VARIANT) SV_EXTENDED=1 T=$(T) bash tests/run.sh

$(B)/tests/bench/tui-bench: tests/bench/tui.c $(TUIA) $(FMTA) $(LIBA)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(TEST_CFLAGS) -Itui $(TUI_CFLAGS) -O2 $< -o $@ $(LDSAN) $(TUIA) $(FMTA) $(LIBA) $(PKG_LIBS) $(TUI_LIBS) -pthread -lm

bench: $(BIN) $(B)/tests/bench/gen $(B)/tests/bench/engine $(B)/tests/bench/tui-bench $(B)/tests/bench/memtouch
	$(Q)SV_BUILD=$(B) bash tests/bench/bench.sh

# What the build and the demo need (make deps), and what the tests add to it (make deps-test:
# test tools, a browser for the SVG check, clang for make fuzz, Go for pprof's own tools), on
# Debian 12. Each installs only what is missing; make test and make test-extended ask for
# deps-test first, so a clone's two commands (make demo, make test) need nothing else.
DEB_BUILD := build-essential pkg-config libpcre2-dev libxml2-dev libjson-c-dev zlib1g-dev libzip-dev \
	libncurses-dev libdw-dev libelf-dev libzstd-dev libiberty-dev libprotobuf-c-dev protobuf-c-compiler \
	libcurl4-openssl-dev libmspack-dev libdebuginfod-dev libcapstone-dev libtraceevent-dev
DEB_TEST := libc6-dbg libcmocka-dev jq zip unzip tmux libxml2-utils time chromium clang libclang-rt-14-dev \
	golang-go python3 gcab debuginfod libarchive-tools gdb heaptrack zstd linux-perf nodejs
define install_missing
	@missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q $$missing; \
	fi
endef
deps:
	$(call install_missing,$(DEB_BUILD))
deps-test:
	$(call install_missing,$(DEB_BUILD) $(DEB_TEST))

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(BIN) examples/tutorial.perfView.xml

# libFuzzer runs (clang): each target FUZZ_SECONDS, seeded from tests/fuzz/corpus/<target>;
# new inputs go to build/fuzz/corpus-<target>, crashes to build/fuzz/crash-*.
fuzz:
	@command -v clang >/dev/null || { echo "make fuzz needs clang: run make deps-test"; exit 1; }
	$(Q)$(MAKE) --no-print-directory FUZZ=1 CC=clang fuzz-build
	$(Q)for t in $(FUZZ_TARGETS); do \
		mkdir -p build/fuzz/corpus-$$t; \
		echo "== fuzz_$$t ($(FUZZ_SECONDS) s)"; \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp build/fuzz/tests/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
			-artifact_prefix=build/fuzz/crash-$$t- -print_final_stats=1 \
			build/fuzz/corpus-$$t tests/fuzz/corpus/$$t 2>&1 | grep -E '^(stat::number_of_executed_units|stat::peak_rss|#[0-9]+[[:space:]]+DONE|==[0-9]+==ERROR|SUMMARY)' ; \
	done
fuzz-build: $(FUZZ_BINS)
.PHONY: fuzz fuzz-build

install: $(BIN) $(B)/libstackview.so
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/stackview \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/stackview
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/stackview
	install -m 755 $(B)/libstackview.so $(DESTDIR)$(PREFIX)/lib/libstackview.so.0
	ln -sf libstackview.so.0 $(DESTDIR)$(PREFIX)/lib/libstackview.so
	install -m 644 $(LIBA) $(DESTDIR)$(PREFIX)/lib/libstackview.a
	install -m 644 lib/include/stackview/*.h formats/include/stackview/*.h $(DESTDIR)$(PREFIX)/include/stackview/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' stackview.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/stackview.pc
	install -m 644 docs/stackview.1 $(DESTDIR)$(PREFIX)/share/man/man1/stackview.1
	install -m 644 examples/tutorial.perfView.xml $(DESTDIR)$(PREFIX)/share/stackview/tutorial.perfView.xml

# lib/ may include only libc, pcre2 and its own headers; formats/ only lib/, its own and
# its libraries; neither may include tui/ or cmd/ (design.md "Layers").
check-layering:
	@bad=$$(grep -n '#include' lib/*.c lib/*.h lib/internal/sv/*.h lib/include/stackview/*.h | \
		grep -E '"(tui|cmd|formats)/|stackview/(formats|registry|input|save)\.h|<(libxml|json-c|json\.h|zip|zlib|zstd|gelf|libelf|dwarf|libdw|elfutils|libiberty|demangle|ncurses|curses)' ); \
	bad2=$$(grep -n '#include' formats/*/*.c formats/*/*.h formats/include/stackview/*.h | grep -E '"(tui|cmd)/|<(ncurses|curses)'); \
	bad3=$$(grep -n '#include' tui/*.c tui/*.h | grep -E '"(cmd|formats)/|stackview/(formats|input|save)\.h'); \
	if [ -n "$$bad$$bad2$$bad3" ]; then echo "layering violation:"; echo "$$bad$$bad2$$bad3"; exit 1; fi

# No circle between files: no two files of lib/, formats/, tui/ or cmd/ use each other's
# functions, directly or round a ring (read from the objects' symbols).
check-cycles: $(LIB_OBJS) $(FMT_OBJS) $(TUI_OBJS) $(CMD_OBJS)
	$(Q)python3 tests/tools/file_cycles.py $(B) $^

# The top of the repository holds only what a rule builds or uses; anything else (a stray
# "-", a profiler's log) fails the tests until it is removed or ignored (.gitignore). In a git
# checkout, ignored files do not count; elsewhere every file does.
TOP_FILES := .ci .git .gitignore Makefile README.md build cmd docs examples formats lib stackview.pc.in tests tui
check-tree:
	@if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		top=$$(git ls-files --cached --others --exclude-standard | cut -d/ -f1 | sort -u); \
	else top=$$(ls -A); fi; \
	stray=$$(for f in $$top; do case " $(TOP_FILES) " in *" $$f "*) ;; *) printf ' %s' "$$f";; esac; done); \
	if [ -n "$$stray" ]; then echo "check-tree: files at the top that no rule builds or uses:$$stray"; exit 1; fi

# Every public header compiles on its own (libgit2's headertest).
check-headers:
	@for h in lib/include/stackview/*.h formats/include/stackview/*.h; do \
		printf '#include "stackview/%s"\n' "$${h##*/}" | \
		$(CC) -std=c17 -Wall -Wextra -Wpedantic -Werror -Ilib/include -Iformats/include -fsyntax-only -x c - \
		|| { echo "check-headers: $$h does not compile alone"; exit 1; }; \
	done

# libstackview.so exports exactly the SV_API declarations of the installed headers: every
# exported symbol is declared there, every declaration is exported (the sanitizers' own
# __asan/__odr_asan symbols aside).
check-exports: $(B)/libstackview.so
	@nm -D --defined-only $(B)/libstackview.so | awk '$$2 ~ /^[TDRB]$$/ && $$3 !~ /^__/ {print $$3}' | \
		sort -u > $(B)/exports.txt; \
	grep -ho 'SV_API[^;(]*[ *]\(sv_[a-z0-9_]*\)' lib/include/stackview/*.h formats/include/stackview/*.h | \
		sed 's/.*[ *]//' | sort -u > $(B)/declared.txt; \
	if ! diff $(B)/declared.txt $(B)/exports.txt > $(B)/exports.diff; then \
		echo "check-exports: libstackview.so differs from the SV_API declarations (< declared, > exported):"; \
		cat $(B)/exports.diff; exit 1; fi

clean:
	rm -rf build

-include $(LIB_OBJS:.o=.d) $(FMT_OBJS:.o=.d) $(TUI_OBJS:.o=.d) $(CMD_OBJS:.o=.d) $(UNIT_BINS:=.d)
