# SPDX-License-Identifier: MIT
# PDB symbols (issue 17): `stackview symbols` on the PDBs of tests/data/pdb (getsentry/symbolic's
# fixtures, MIT) gives every FUNC of their Breakpad .sym files (same RVA and size, same name up
# to the parameter list) and every PUBLIC; the identity equals the .sym's MODULE line; lookups;
# damaged PDBs give one-line errors.
PDBD=$PWD/tests/data/pdb
PT=$TMP/pdb
mkdir -p "$PT"
for f in crash.pdb:crash.sym CrashWithException.pdb:CrashWithException.pdb.sym; do
	pdb=${f%%:*}
	sym=${f#*:}
	gzip -dc "$PDBD/$sym.gz" > "$PT/$sym"
	if ! "$SV" symbols "$PDBD/$pdb.gz" > "$PT/$pdb.txt" 2> "$PT/err"; then
		bad "pdb.$pdb.symbols" "$(head -1 "$PT/err")"
		continue
	fi
	if out=$(perl tests/pdb/sym_compare.pl "$PT/$pdb.txt" "$PT/$sym"); then ok; else bad "pdb.$pdb.breakpad" "$(printf '%s' "$out" | tail -4)"; fi
	# the source lines (C13 line tables): every line record of the .sym, same RVA, size, line, file
	"$SV" symbols "$PDBD/$pdb.gz" --lines > "$PT/$pdb.lines" 2> /dev/null
	if out=$(python3 tests/pdb/lines_compare.py "$PT/$pdb.lines" "$PT/$sym"); then ok; else bad "pdb.$pdb.lines" "$(printf '%s' "$out" | tail -4)"; fi
	# the symbol-store key: the .sym's MODULE line (GUID and age)
	want=$(sed -n 's/^MODULE [^ ]* [^ ]* \([0-9A-F]*\) .*/\1/p' "$PT/$sym")
	got=$(sed -n '1s/.* PDB \([0-9A-F]*\) .*/\1/p' "$PT/$pdb.txt")
	if [ -n "$want" ] && [ "$got" = "$want" ]; then ok; else bad "pdb.$pdb.key" "got '$got', want '$want'"; fi
done
# every line RVA SIZE NAME in RVA order, one per address
if perl -ne 'next if $. == 1; my $a = hex((split)[0]); exit 1 if defined $p && $a <= $p; $p = $a' "$PT/crash.pdb.txt"; then ok; else bad pdb.sorted; fi
# lookups: inside procedures (with their source lines), a public, before everything; JSON
got=$("$SV" symbols "$PDBD/crash.pdb.gz" --lookup 0x1005,1fff,0x10 --lookup 3727)
want=$(printf '1005 1000+5 google_breakpad::CrashGenerationClient::RequestDump c:\\projects\\breakpad-tools\\deps\\breakpad\\src\\client\\windows\\crash_generation\\crash_generation_client.cc:323\n1fff 1ef0+10f google_breakpad::ExceptionHandler::HandlePureVirtualCall c:\\projects\\breakpad-tools\\deps\\breakpad\\src\\client\\windows\\handler\\exception_handler.cc:699\n10 -\n3727 3726+1 __CxxFrameHandler3')
if [ "$got" = "$want" ]; then ok; else bad pdb.lookup "got: $got"; fi
cn pdb.lookup.json '[.machine, .age, (.lookups[] | [.address, .rva, .size, .name, .public, (.source | sub(".*\\\\"; "")), .line])]' \
	'["x86",1,["1123","1120",84,"std::basic_string<wchar_t,std::char_traits<wchar_t>,std::allocator<wchar_t> >::~basic_string<wchar_t,std::char_traits<wchar_t>,std::allocator<wchar_t> >",false,"xstring",2425]]' \
	symbols "$PDBD/crash.pdb.gz" --lookup 1123
cn pdb.json.x64 '[.machine, .procedures, .publics, (.functions | length)]' '["x64",77,258,238]' symbols "$PDBD/CrashWithException.pdb.gz"
e pdb.lookup.bad 2 "--lookup: 'zz' is not an address" -- symbols "$PDBD/crash.pdb.gz" --lookup zz
# damage: the header, the directory, a stream's blocks, a truncated file, an old PDB
gzip -dc "$PDBD/crash.pdb.gz" > "$PT/good.pdb"
patch_pdb() { # OUT OFFSET HEXBYTES
	cp "$PT/good.pdb" "$1"
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
patch_pdb "$PT/magic.pdb" 0 'Xicrosoft'
patch_pdb "$PT/blocksize.pdb" 32 '\x01\x10\x00\x00'
patch_pdb "$PT/dirmap.pdb" 52 '\xff\xff\x00\x00'
patch_pdb "$PT/dirsize.pdb" 44 '\xff\xff\xff\x7f'
head -c 500000 "$PT/good.pdb" > "$PT/truncated.pdb"
printf 'Microsoft C/C++ program database 2.00\r\n\x1aJG\0\0' > "$PT/old.pdb"
e pdb.bad.magic 1 "magic.pdb: byte 0: not a PDB file" -- symbols "$PT/magic.pdb"
e pdb.bad.blocksize 1 "blocksize.pdb: byte 32: corrupt PDB: block size" -- symbols "$PT/blocksize.pdb"
e pdb.bad.dirmap 1 "dirmap.pdb: byte 52: corrupt PDB: the directory's block map is outside the file" -- symbols "$PT/dirmap.pdb"
e pdb.bad.dirsize 1 "dirsize.pdb: byte 44: corrupt PDB: stream directory size" -- symbols "$PT/dirsize.pdb"
e pdb.bad.truncated 1 "truncated.pdb: byte 40: truncated PDB" -- symbols "$PT/truncated.pdb"
e pdb.bad.old 1 "old.pdb: byte 0: PDB 2.00" -- symbols "$PT/old.pdb"
e pdb.bad.missing 1 "nosuch.pdb" -- symbols "$PT/nosuch.pdb"
# A PDB written by gen_pdb.py (known contents): procedures, a MASM procedure's x86 name, a
# public inside a procedure left out, stdcall and C++ publics, and OMAP moving a section.
python3 tests/pdb/gen_pdb.py "$PT/gen.pdb"
python3 tests/pdb/gen_pdb.py "$PT/omap.pdb" omap
want=$(printf '# %s: PDB 131211101514171618191A1B1C1D1E1F3 (x86), 3 procedures, 3 publics (1 inside them), 6 source lines\n1010 20 ns::Widget::draw\n1040 8 helper\n1100 0 lonely\n3000 10 asm_entry\n3080 0 orphan' "$PT/gen.pdb")
got=$("$SV" symbols "$PT/gen.pdb" 2>&1)
if [ "$got" = "$want" ]; then ok; else bad pdb.gen "$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got"))"; fi
got=$("$SV" symbols "$PT/omap.pdb" 2>&1 | tail -n 2)
if [ "$got" = "$(printf '4000 10 asm_entry\n4080 0 orphan')" ]; then ok; else bad pdb.omap "got: $got"; fi
# its source lines: each to the next one's address, two at one address (the first gets no
# code), a line of the moved section where OMAP puts it; a lookup names its line
got=$("$SV" symbols "$PT/gen.pdb" --lines 2>&1 | tail -n +2)
want=$(printf '1010 4 10 src\\draw.cpp\n1014 c 11 src\\draw.cpp\n1020 10 12 src\\draw.cpp\n1040 0 20 src\\draw.cpp\n1040 8 21 src\\draw.cpp\n3000 10 5 asm.asm')
if [ "$got" = "$want" ]; then ok; else bad pdb.gen.lines "$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got"))"; fi
got=$("$SV" symbols "$PT/omap.pdb" --lines 2>&1 | tail -n 1)
if [ "$got" = "4000 10 5 asm.asm" ]; then ok; else bad pdb.omap.lines "got: $got"; fi
got=$("$SV" symbols "$PT/gen.pdb" --lookup 1016,1042,1048,1020)
if [ "$got" = "$(printf '1016 1010+6 ns::Widget::draw src\\draw.cpp:11\n1042 1040+2 helper src\\draw.cpp:21\n1048 -\n1020 1010+10 ns::Widget::draw src\\draw.cpp:12')" ]; then ok; else bad pdb.gen.lookup-line "got: $got"; fi
# a line block that overruns its table, a file no checksum entry holds: one-line errors
python3 - "$PT/gen.pdb" "$PT/badlines.pdb" "$PT/badfile.pdb" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
at = d.index(bytes.fromhex("f2000000")) + 8 + 12  # the first line block after the table header
a = bytearray(d); a[at + 8:at + 12] = (0x7fff).to_bytes(4, "little")  # block size
open(sys.argv[2], "wb").write(a)
b = bytearray(d); b[at:at + 4] = (0x400).to_bytes(4, "little")  # checksum entry offset
open(sys.argv[3], "wb").write(b)
PY
e pdb.bad.lines 1 "badlines.pdb: .*corrupt PDB: a line block overruns its table" -- symbols "$PT/badlines.pdb"
e pdb.bad.linefile 1 "badfile.pdb: .*corrupt PDB: a line block names no file checksum entry" -- symbols "$PT/badfile.pdb"

# ETL frames named from PDBs: a generated trace (tests/threadtime/gen_etl.py symbols) whose
# crash.exe was built with crash.pdb (its DbgID_RSDS identity) and whose other.exe claims a
# crash.pdb of another GUID; the PDB in a symbol store (srv*CACHE*URL, read offline) and, for
# the wrong identity, in a plain directory.
python3 tests/threadtime/gen_etl.py "$PT/sym.etl" symbols
KEY=3249D99D0C4049318610F4E4FB0B69361
mkdir -p "$PT/store/crash.pdb/$KEY" "$PT/flat"
cp "$PT/good.pdb" "$PT/store/crash.pdb/$KEY/crash.pdb"
cp "$PT/good.pdb" "$PT/flat/crash.pdb"
python3 tests/pdb/gen_pe.py "$PT/flat/lib.dll" # lib.dll has no PDB identity: its exports, by its ImageID key
SP="srv*$PT/store*https://msdl.microsoft.com/download/symbols;$PT/flat"
cn pdb.etl.names '[.rows[] | select(.name | test("^(crash|other)!")) | [.name, .exc]] | sort' \
	'[["crash!__CxxFrameHandler3",1],["crash!google_breakpad::CrashGenerationClient::RequestDump",1],["crash!google_breakpad::ExceptionHandler::HandleException",0],["other!?",1]]' \
	byname "$PT/sym.etl" --symbol-path "$SP"
cn pdb.etl.exports '[.rows[] | select(.name | test("^lib!")) | [.name, .exc]]' '[["lib!beta",1]]' byname "$PT/sym.etl" --symbol-path "$SP"
cn pdb.etl.env '[.rows[] | select(.name | test("^crash!")) | .name] | length' 3 byname "$PT/sym.etl" --symbol-path "$SP"
got=$(_NT_SYMBOL_PATH="cache*$PT/store" "$SV" byname "$PT/sym.etl" --json 2>/dev/null | jq -c '[.rows[] | select(.name | test("^crash!")) | .name] | length')
if [ "$got" = 3 ]; then ok; else bad pdb.etl.nt-symbol-path "got $got"; fi
cn pdb.etl.found '[.found[] | select(startswith("symbols:"))]' \
	"[\"symbols: crash.pdb $KEY from $PT/store/crash.pdb/$KEY/crash.pdb\",\"symbols: crash.pdb 000000000000000000000000000000001: $PT/flat/crash.pdb is $KEY, not the image's 000000000000000000000000000000001\",\"symbols: lib.dll 5AB380773000 (its exports: no PDB) from $PT/flat/lib.dll\",\"symbols: 3 images have no PDB identity in the trace (no ImageID/DbgID_RSDS event): ntdll.dll, app.exe, work.dll\",\"symbols: 1 of 1 images without their PDB were found for their exports\"]" \
	info "$PT/sym.etl" --symbol-path "$SP"
cn pdb.etl.warning '[.warnings[] | select(startswith("symbols:"))]' '["symbols: 1 of 2 PDBs the frames need were found on the symbol path (not: crash.pdb)"]' \
	info "$PT/sym.etl" --symbol-path "$SP"
# Goto Source on the trace (issue 36): each line from the PDB's line tables, the leaf's at its
# address, a caller's at its call (the byte before the return address); the lines are the
# .sym's records for those addresses (dump_syms: the oracle); the source read through a
# Windows prefix replaced (--source-path 'c:\\...=DIR', any case)
symline() { python3 -c "import sys
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) == 4 and all(c in '0123456789abcdef' for c in f[0] + f[1]) and int(f[0], 16) <= int(sys.argv[2], 16) < int(f[0], 16) + int(f[1], 16):
        print(f[2]); break" "$PT/crash.sym" "$1"; }
want="[[$(symline 1005),1,1]]"
cn pdb.etl.source.leaf '[.lines[] | select(.inc > 0) | [.line, .exc, .inc]]' "$want" \
	source "$PT/sym.etl" --symbol-path "$SP" --name 'google_breakpad::CrashGenerationClient::RequestDump'
want="[[$(symline 1c4f),0,2]]"
cn pdb.etl.source.caller '[.lines[] | select(.inc > 0) | [.line, .exc, .inc]]' "$want" \
	source "$PT/sym.etl" --symbol-path "$SP" --name 'google_breakpad::ExceptionHandler::HandleException'
mkdir -p "$PT/src/client/windows/handler"
for i in $(seq 1 600); do printf 'code line %d\n' "$i"; done > "$PT/src/client/windows/handler/exception_handler.cc"
got=$("$SV" source "$PT/sym.etl" --symbol-path "$SP" --name 'google_breakpad::ExceptionHandler::HandleException' \
	--source-path 'C:\PROJECTS\breakpad-tools\deps\breakpad='"$PT" 2>/dev/null | grep -E "^ +$(symline 1c4f) ")
case "$got" in *"| code line $(symline 1c4f)") ok ;; *) bad pdb.etl.source.text "$got" ;; esac
# in the terminal UI (past the process picker): Alt-D on the caller reads the trace again for
# its callers' addresses
printf '# source\n<Esc> 1 / "HandleException" <Enter> <M-d> :dump\n' > "$PT/src.keys"
got=$("$SV" view "$PT/sym.etl" --symbol-path "$SP" --script "$PT/src.keys" --size 140x20 2>/dev/null)
if printf '%s\n' "$got" | grep -q '^Goto Source: crash!google_breakpad::ExceptionHandler::HandleException' &&
	printf '%s\n' "$got" | grep -Eq "^ +$(symline 1c4f) +[0-9.]+ +0.00 +2.000 "; then ok; else
	bad pdb.etl.source.tui "$(printf '%s\n' "$got" | head -8)"; fi
# annotate on the trace (issue 36): the image itself beside its PDB (a folder of the symbol
# path, or a store by the image's TimeDateStamp and SizeOfImage from its ImageID event),
# decoded over the procedure's extent from the PDB; objdump (binutils, PE support) is the
# oracle for the instructions, the .sym's FUNC record for the extent
mkdir -p "$PT/code" "$PT/codestore/crash.exe/5AB380779000" "$PT/codestore/crash.pdb/$KEY" "$PT/wrong"
gzip -dc "$PDBD/crash.exe.gz" > "$PT/code/crash.exe"
cp "$PT/good.pdb" "$PT/code/crash.pdb"
cp "$PT/code/crash.exe" "$PT/codestore/crash.exe/5AB380779000/crash.exe"
cp "$PT/good.pdb" "$PT/codestore/crash.pdb/$KEY/crash.pdb"
gzip -dc "$PDBD/CrashWithException.exe.gz" > "$PT/wrong/crash.exe" # another build under the name
cp "$PT/good.pdb" "$PT/wrong/crash.pdb"
# objdump's instruction addresses in [start, end), and the one holding an address
od_insns() { objdump -d --start-address="0x$1" --stop-address="0x$2" "$PT/code/crash.exe" |
	sed -n 's/^ *\([0-9a-f]*\):\t.*/\1/p' | jq -R . | jq -sc .; }
od_holding() { objdump -d --start-address="0x$1" --stop-address="0x$2" "$PT/code/crash.exe" | python3 -c "import sys
for l in sys.stdin:
    f = l.rstrip('\\n').split('\\t')
    if len(f) >= 2 and f[0].strip().endswith(':'):
        at = int(f[0].strip()[:-1], 16)
        if at <= int(sys.argv[1], 16) < at + len(f[1].split()):
            print(f[0].strip()[:-1])" "$3"; }
fn=$(awk '$1 == "FUNC" && $2 == "1000" { print $3; exit }' "$PT/crash.sym")
for sp in "$PT/code" "cache*$PT/codestore"; do
	got=$("$SV" annotate "$PT/sym.etl" --symbol-path "$sp" --name 'google_breakpad::CrashGenerationClient::RequestDump' \
		--json 2>/dev/null | jq -c '[.start, .end, [.instructions[].address], [.instructions[] | select(.percent > 0) | [.address, .percent]]]')
	end=$(printf '%x' $((0x401000 + 16#$fn)))
	want="[\"401000\",\"$end\",$(od_insns 401000 "$end"),[[\"$(od_holding 401000 "$end" 401005)\",100]]]"
	if [ -n "$fn" ] && [ "$got" = "$want" ]; then ok; else bad "pdb.etl.annotate ($sp)" "got $got, want $want"; fi
done
# a public (no extent in the PDB: up to the next symbol), the import thunk the sample is in
got=$("$SV" annotate "$PT/sym.etl" --symbol-path "$PT/code" --group '' --name '__CxxFrameHandler3' --json 2>/dev/null |
	jq -c '[.start, .end, [.instructions[].address], [.instructions[] | select(.percent > 0) | .address]]')
want="[\"403726\",\"40372c\",$(od_insns 403726 40372c),[\"$(od_holding 403726 40372c 403727)\"]]"
if [ "$got" = "$want" ]; then ok; else bad pdb.etl.annotate.public "got $got, want $want"; fi
# an image of another build under the name is not read: no code, and the message says where
# images are looked for
err=$("$SV" annotate "$PT/sym.etl" --symbol-path "$PT/wrong" --name RequestDump 2>&1 >/dev/null)
st=$?
if [ "$st" = 1 ] && grep -q 'has no code addresses.*ETL traces, with each image beside its PDB' <<<"$err"; then ok; else
	bad pdb.etl.annotate.wrong-build "exit $st: $err"; fi
# info says which image annotate reads, or why none
cn pdb.etl.annotate.info '[.found[] | select(startswith("code for annotate"))]' \
	"[\"code for annotate: crash.exe from $PT/code/crash.exe\"]" info "$PT/sym.etl" --symbol-path "$PT/code"
cn pdb.etl.annotate.info-none '[.found[] | select(startswith("code for annotate")) | sub(" [(].*"; "")]' \
	'["code for annotate: crash.exe is not beside crash.pdb on the symbol path"]' info "$PT/sym.etl" --symbol-path "$PT/wrong"
# in the terminal UI: `a` on the function's row
printf '# annotate\n<Esc> 1 / "RequestDump" <Enter> a :dump\n' > "$PT/ann.keys"
got=$("$SV" view "$PT/sym.etl" --symbol-path "$PT/code" --group '' --script "$PT/ann.keys" --size 140x20 2>/dev/null)
if printf '%s\n' "$got" | grep -q "^Annotate: google_breakpad::CrashGenerationClient::RequestDump in $PT/code/crash.exe" &&
	printf '%s\n' "$got" | grep -Eq "^ +100.00 +1 \| \* +$(od_holding 401000 401100 401005):"; then ok; else
	bad pdb.etl.annotate.tui "$(printf '%s\n' "$got" | head -6)"; fi
# no symbol path: module!? as before, and not a word about symbols
cn pdb.etl.none '[([.rows[] | select(.name | test("^crash!"))] | map(.name)), ([.. | strings | select(startswith("symbols:"))] | length)]' \
	'[["crash!?"],0]' byname "$PT/sym.etl"

# A symbol server on loopback (tests/pdb/symserver.py, which stops by itself): the PDB is
# downloaded into an empty cache (the server has only the CAB-compressed crash.pd_, made by
# gcab, expanded with libmspack), written whole, used; an identity the server lacks is a 404;
# --offline asks nothing; a server that cannot be reached is asked once per run.
mkdir -p "$PT/srv/crash.pdb/$KEY"
if command -v gcab > /dev/null; then
	(cd "$PT" && cp good.pdb crash.pdb && gcab -c -z "srv/crash.pdb/$KEY/crash.pd_" crash.pdb > /dev/null && rm crash.pdb)
else
	cp "$PT/good.pdb" "$PT/srv/crash.pdb/$KEY/crash.pdb"
fi
: > "$PT/srv.log"
python3 tests/pdb/symserver.py "$PT/srv" "$PT/srv.log" 60 > "$PT/port" &
SRV=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$PT/port" ] && break; sleep 0.2; done
URL="http://127.0.0.1:$(head -n 1 "$PT/port")"
cn pdb.server.names '[.rows[] | select(.name | test("^crash!")) | .name] | sort' \
	'["crash!__CxxFrameHandler3","crash!google_breakpad::CrashGenerationClient::RequestDump","crash!google_breakpad::ExceptionHandler::HandleException"]' \
	byname "$PT/sym.etl" --symbol-path "srv*$PT/cache*$URL"
if cmp -s "$PT/cache/crash.pdb/$KEY/crash.pdb" "$PT/good.pdb" && [ -z "$(find "$PT/cache" -name '*.tmp.*' -o -name '*.cab.*')" ]; then ok; else bad pdb.server.cached "the cache does not hold the PDB whole"; fi
cn pdb.server.notes '[.found[] | select(startswith("symbols:")) | sub("127.0.0.1:[0-9]+"; "127.0.0.1:PORT")]' \
	"[\"symbols: crash.pdb $KEY from $PT/cache2/crash.pdb/$KEY/crash.pdb (downloaded from http://127.0.0.1:PORT)\",\"symbols: crash.pdb 000000000000000000000000000000001: not on http://127.0.0.1:PORT (HTTP 404 for crash.pdb and its .pd_)\",\"symbols: 3 images have no PDB identity in the trace (no ImageID/DbgID_RSDS event): ntdll.dll, app.exe, work.dll\",\"symbols: 0 of 1 images without their PDB were found for their exports\"]" \
	info "$PT/sym.etl" --symbol-path "srv*$PT/cache2*$URL"
n=$(grep -c "GET /crash.pdb/$KEY/" "$PT/srv.log")
cn pdb.server.cache-first '[.rows[] | select(.name | test("^crash!"))] | length' 3 byname "$PT/sym.etl" --symbol-path "srv*$PT/cache*$URL"
if [ "$(grep -c "GET /crash.pdb/$KEY/" "$PT/srv.log")" = "$n" ]; then ok; else bad pdb.server.cache-first-asked "the server was asked again"; fi
cn pdb.server.offline '[.rows[] | select(.name | test("^crash!")) | .name]' '["crash!?"]' byname "$PT/sym.etl" --symbol-path "srv*$PT/cache3*$URL" --offline
if [ ! -e "$PT/cache3" ]; then ok; else bad pdb.server.offline-wrote "--offline made $PT/cache3"; fi
kill "$SRV" 2> /dev/null
wait "$SRV" 2> /dev/null
cn pdb.server.down '[.found[] | select(startswith("symbols: crash.pdb")) | test("not asked: http://127.0.0.1:1/ failed earlier in this run")]' '[false,true]' \
	info "$PT/sym.etl" --symbol-path "srv*$PT/cache4*http://127.0.0.1:1/"

# PE images: the identity a store keys the image and its PDB by (the .sym files' INFO CODE_ID
# and MODULE lines), and the export table (tests/pdb/gen_pe.py: two named exports, a forwarder
# and an ordinal-only export left out); a .pd_ (a cabinet, made by gcab) lists as its PDB.
for f in crash.exe:crash.sym CrashWithException.exe:CrashWithException.pdb.sym; do
	exe=${f%%:*}
	sym=$PT/${f#*:}
	want="$(sed -n 's/^INFO CODE_ID \([0-9A-F]*\) .*/\1/p' "$sym") $(sed -n 's/^MODULE [^ ]* [^ ]* \([0-9A-F]*\) .*/\1/p' "$sym")"
	got=$("$SV" symbols "$PDBD/$exe.gz" --json | jq -r '"\(.image_key) \(.key)"')
	if [ "$got" = "$want" ]; then ok; else bad "pdb.pe.$exe" "got '$got', want '$want'"; fi
done
python3 tests/pdb/gen_pe.py "$PT/lib.dll"
got=$("$SV" symbols "$PT/lib.dll" 2>&1)
want=$(printf '# %s: PE image 5AB380773000 (x64), 2 exports; its PDB: lib.pdb 131211101514171618191A1B1C1D1E1F5\n1010 0 alpha\n1100 0 beta' "$PT/lib.dll")
if [ "$got" = "$want" ]; then ok; else bad pdb.pe.exports "$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got"))"; fi
head -c 300 "$PT/lib.dll" > "$PT/short.dll"
e pdb.pe.bad 1 "short.dll: byte 84: corrupt PE image: optional header out of range" -- symbols "$PT/short.dll"
printf "MZ" > "$PT/mz.dll"
e pdb.pe.mz 1 "mz.dll: byte 0: not a PE image" -- symbols "$PT/mz.dll"
if command -v gcab > /dev/null; then
	(cd "$PT" && cp good.pdb crash.pdb && gcab -c -z crash.pd_ crash.pdb > /dev/null && rm crash.pdb)
	got=$("$SV" symbols "$PT/crash.pd_" | tail -n +2 | md5sum)
	want=$("$SV" symbols "$PT/good.pdb" | tail -n +2 | md5sum)
	if [ "$got" = "$want" ]; then ok; else bad pdb.pd_ "a .pd_ lists differently from its PDB"; fi
	printf 'MSCF garbage' > "$PT/bad.pd_"
	e pdb.pd_.bad 1 "bad.pd_: not a cabinet" -- symbols "$PT/bad.pd_"
else
	bad pdb.pd_ "gcab is not installed (make deps)"
fi

# ELF files list as the perf symbolizer names their functions: every sized text symbol nm
# shows is there at its address with its size.
ELF=$(ls tests/data/threadtime/debug/.build-id/*/*.debug | head -n 1)
"$SV" symbols "$ELF" > "$PT/elf.txt"
nm -S --defined-only "$ELF" | perl -ne 'printf "%x %x %s\n", hex $1, hex $2, $3 if /^(\S+) (\S+) [Tt] (\S+)$/' > "$PT/nm.txt"
missing=$(while read -r line; do grep -qxF "$line" "$PT/elf.txt" || echo "$line"; done < "$PT/nm.txt")
n=$(grep -c '' "$PT/nm.txt")
if [ -z "$missing" ] && [ "$n" -gt 10 ]; then ok; else bad pdb.elf "$n nm symbols; not listed: $missing"; fi

# ---- servers that misbehave (tests/pdb/badserver.py on loopback, which stops by itself) ----
# Each download has a deadline (--net-timeout; --net-total for the run); a drip, a stall and an
# endless body end there, an HTML page served with 200 is no PDB; none leaves a file or a
# directory in the cache, and the next PDB of the run is not asked of a server that failed.
: > "$PT/bad.log"
python3 tests/pdb/badserver.py "$PT/bad.log" 90 "$PT/good.pdb" > "$PT/badport" &
BADSRV=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$PT/badport" ] && break; sleep 0.2; done
BAD="http://127.0.0.1:$(head -n 1 "$PT/badport")"
strip_port() { sed -E 's/127\.0\.0\.1:[0-9]+/127.0.0.1:PORT/g'; }
for m in drip:'timed out after 2 s' stall:'timed out after 2 s' endless:'timed out after 2 s' html:'HTTP 200 but not a PDB (it begins "<!DOCTYPE html><html><bo")'; do
	mode=${m%%:*}
	want=${m#*:}
	t0=$(date +%s%N)
	got=$("$SV" info "$PT/sym.etl" --symbol-path "srv*$PT/c-$mode*$BAD/$mode" --net-timeout 2 --json 2>/dev/null |
		jq -r '[.found[] | select(startswith("symbols: crash.pdb"))] | join("\n")' | strip_port)
	ms=$((($(date +%s%N) - t0) / 1000000))
	left=$(find "$PT/c-$mode" -mindepth 1 2>/dev/null | head -n 3)
	if printf '%s' "$got" | grep -qF "$mode/crash.pdb/$KEY/crash.pdb: $want" &&
		printf '%s' "$got" | grep -qF "000000000000000000000000000000001: not asked: http://127.0.0.1:PORT/$mode failed earlier in this run" &&
		[ -z "$left" ] && [ "$ms" -lt 8000 ]; then ok; else bad "pdb.badserver.$mode" "${ms} ms, left [$left]: $got"; fi
done
# --net-total: the run's time is spent on the first PDB; the second is not asked, and says so
got=$("$SV" info "$PT/sym.etl" --symbol-path "srv*$PT/c-total*$BAD/drip" --net-timeout 30 --net-total 1 --json 2>/dev/null |
	jq -r '[.found[] | select(startswith("symbols: crash.pdb"))] | join("\n")' | strip_port)
if printf '%s' "$got" | grep -qF "timed out after 1 s" && printf '%s' "$got" | grep -qF "not asked: the run's 1 s for downloads are spent (--net-total)"; then ok; else bad pdb.badserver.total "$got"; fi
# Ctrl-C stops a download within a second: the load is canceled (exit 1), nothing is left;
# SIGTERM ends the program (143), nothing is left either
for s in INT:1 TERM:143; do
	sig=${s%%:*}
	: > "$PT/bad.log"
	"$SV" info "$PT/sym.etl" --symbol-path "srv*$PT/c-$sig*$BAD/drip" --net-timeout 60 > "$PT/sig.out" 2>&1 &
	pid=$!
	for _ in $(seq 1 50); do grep -q "GET /drip/" "$PT/bad.log" && break; sleep 0.1; done
	sleep 0.3
	t0=$(date +%s%N)
	kill -"$sig" "$pid"
	wait "$pid"
	st=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	left=$(find "$PT/c-$sig" -mindepth 1 2>/dev/null | head -n 3)
	if [ "$st" = "${s#*:}" ] && [ "$ms" -lt 2500 ] && [ -z "$left" ]; then ok; else bad "pdb.badserver.sig$sig" "exit $st after $ms ms, left [$left]: $(tail -n 1 "$PT/sig.out")"; fi
done
# A trace whose PDB name is ".." after its last separator: the name never becomes a path
# (a server that answers anything with a PDB would otherwise be written to CACHE/../KEY/)
python3 tests/threadtime/gen_etl.py "$PT/dotdot.etl" symbols-dotdot
mkdir -p "$PT/dd/cache"
: > "$PT/bad.log"
got=$("$SV" info "$PT/dotdot.etl" --symbol-path "srv*$PT/dd/cache*$BAD/any" --json 2>/dev/null | jq -c '[.found[] | select(startswith("symbols: .."))] | length')
if [ "$got" = 2 ] && [ "$(ls -A "$PT/dd")" = cache ] && [ -z "$(ls -A "$PT/dd/cache")" ] && ! grep -q "GET /any/\.\./" "$PT/bad.log"; then ok; else
	bad pdb.badserver.dotdot "notes $got; $PT/dd holds: $(ls -A "$PT/dd" "$PT/dd/cache" | tr '\n' ' ')"; fi
# debuginfod that drips: each request ends at --net-timeout, and the note says why
zcat tests/data/mt.fp.data.gz > "$PT/mt.data"
t0=$(date +%s%N)
got=$(DEBUGINFOD_CACHE_PATH="$PT/dcache" "$SV" info "$PT/mt.data" --debuginfod "$BAD/drip" --net-timeout 1 --json 2>/dev/null |
	jq -r '[.found[], .warnings[]] | map(select(startswith("debuginfod"))) | join("")')
ms=$((($(date +%s%N) - t0) / 1000000))
if [ "$got" = "debuginfod: 0 of 1 files asked for by build id found (the last request timed out (--net-timeout, --net-total))" ] && [ "$ms" -lt 6000 ]; then ok; else
	bad pdb.debuginfod.drip "$ms ms: $got"; fi
: > "$PT/bad.log"
DEBUGINFOD_CACHE_PATH="$PT/dcache2" "$SV" info "$PT/mt.data" --debuginfod "$BAD/drip" > "$PT/dsig.out" 2>&1 &
pid=$!
for _ in $(seq 1 50); do grep -q "GET /drip/" "$PT/bad.log" && break; sleep 0.1; done
sleep 0.3
interrupt "$pid"
if [ "$st" = 1 ] && [ "$ms" -lt 2500 ] && grep -q "loading canceled (while asking debuginfod)" "$PT/dsig.out"; then ok; else bad pdb.debuginfod.sigint "exit $st after $ms ms: $(tail -n 1 "$PT/dsig.out")"; fi
kill "$BADSRV" 2> /dev/null
wait "$BADSRV" 2> /dev/null

# Symbols on demand (issue 34): --symbol-modules looks only those modules' PDBs up; in the
# terminal UI, Lookup Symbols (Alt-S) on a module's row reads the file again with its PDB,
# as a new view (Esc goes back).
cn pdb.etl.modules-none '[.rows[] | select(.name | test("^crash!")) | .name]' '["crash!?"]' \
	byname "$PT/sym.etl" --symbol-path "cache*$PT/store" --symbol-modules ntdll
cn pdb.etl.modules-crash '[.rows[] | select(.name | test("^crash!")) | .name] | length' 3 \
	byname "$PT/sym.etl" --symbol-path "cache*$PT/store" --symbol-modules ntdll,CRASH
printf '# input\n<Esc> 1 / "crash" <Enter> <M-s> :dump\n<Esc> :dump\n' > "$PT/lookup.keys"
got=$("$SV" view "$PT/sym.etl" --symbol-path "cache*$PT/store" --symbol-modules ntdll --script "$PT/lookup.keys" --size 110x16 2> /dev/null)
case "$got" in *"module crash <<crash!google_breakpad::"*"symbols: crash (Esc goes back)"*"----"*"module crash <<crash!?>>"*) ok ;;
*) bad pdb.tui.lookup "$(printf '%s\n' "$got" | grep -E 'crash|symbols' | head -5)" ;; esac
# end to end on a terminal (tmux): open the trace, Alt-S on crash's row, its frames named
if command -v tmux > /dev/null 2>&1; then
	sock="sv-pdb-$$"
	tm() { tmux -L "$sock" "$@"; }
	tm new-session -d -s sym -x 120 -y 30 "TERM=xterm-256color $SV $PT/sym.etl --symbol-path 'cache*$PT/store' --symbol-modules ntdll; sleep 20"
	seen=""
	for _ in $(seq 50); do tm capture-pane -t sym -p 2>/dev/null | grep -q 'Filter:' && break; sleep 0.1; done
	tm send-keys -t sym Escape # (alone: Esc and a key at once are Alt-key)
	sleep 0.3
	tm send-keys -t sym 1 / c r a s h Enter
	sleep 0.3
	tm send-keys -t sym M-s
	for _ in $(seq 50); do
		if tm capture-pane -t sym -p 2>/dev/null | grep -q 'crash!google_breakpad'; then seen=1; break; fi
		sleep 0.1
	done
	if [ -n "$seen" ]; then ok; else bad pdb.tmux.lookup "$(tm capture-pane -t sym -p 2>&1 | grep -E 'crash|symbols' | head -4)"; fi
	tm kill-server 2> /dev/null
fi
