# SPDX-License-Identifier: MIT
# Conformance cases of spec/semantics.md §14, run through the CLI, with the expectations
# the decisions table (D1–D11) sets. Sourced by tests/run.sh, which defines:
#   c ID JQ EXPECTED CMD INPUT [OPTIONS...]   JSON of `stackview CMD INPUT --json OPTIONS`
#   t ID LINE CMD INPUT [OPTIONS...]           first line of the text output
# INPUT names a file in tests/conformance/inputs/ (".perfView.xml" may be left off).
# jq helpers: at(["a","b"]) walks children by name, row("n") picks a ByName row.

G_ENTRIES='[group module entries]  {%}!=>module $1'

# T1 — basic aggregation, ROOT row, summary, When
c T1.root        '.tree.inc' 40 calltree s-basic
c T1.main        '.tree|at(["Main"])|[.inc,.exc]' '[40,0]' calltree s-basic
c T1.func        '.tree|at(["Main","Func"])|[.inc,.exc]' '[40,10]' calltree s-basic
c T1.func3       '.tree|at(["Main","Func","Func3"])|[.inc,.exc,.inc_pct]' '[30,10,75]' calltree s-basic
c T1.helper1     '.tree|at(["Main","Func","Func3","Helper1"])|[.inc,.exc]' '[20,0]' calltree s-basic
c T1.leaves      '.tree|at(["Main","Func","Func3","Helper1"])|[.children[]|[.name,.inc,.exc]]' '[["HelperNested",10,10],["HelperX",10,10]]' calltree s-basic
c T1.byname      '[.rows[]|[.name,.exc,.inc]]|sort' '[["Func",10,40],["Func3",10,30],["Helper1",0,20],["HelperNested",10,10],["HelperX",10,10],["Main",0,40],["ROOT",0,40]]' byname s-basic
c T1.byname.pct  'row("Func3").inc_pct' 75 byname s-basic
c T1.when.func   'row("Func").when' '"________K_______K______K_______K"' byname s-basic
c T1.when.h1     'row("Helper1").when' '"________K______________K________"' byname s-basic
t T1.summary     'Totals Metric: 40.0  Count: 4.0  First: 10.000 Last: 40.000  Last-First: 30.000  Metric/Interval: 1.33  TimeBucket: 1.3' calltree s-basic
c T1.summary.json '.summary|[.metric,.count,.first,.last,.start,.end,.scaling]' '[40,4,10,40,0,40,"data"]' calltree s-basic

# T2 — direct recursion collapses; ByName counts inclusive once
c T2.tree        '[.tree|at(["Main","A"])|.inc,.exc,([.children[]|[.name,.inc,.exc]])]' '[2,0,[["B",1,0],["C",1,1]]]' calltree s-rec
c T2.inner       '.tree|at(["Main","A","B","A"])|[.inc,.exc]' '[1,1]' calltree s-rec
c T2.byname      '[.rows[]|[.name,.exc,.inc]]|sort' '[["A",1,2],["B",0,1],["C",1,1],["Main",0,2],["ROOT",0,2]]' byname s-rec

# T3 — Caller-Callee 1/k split
c T3.focus       '.focus|[.name,.inc,.exc,.inc_count,.exc_count]' '["A",2,0.5,2,0.5]' callercallee s-rec --focus A
c T3.callers     '[.callers[]|[.name,.inc,.exc]]' '[["Main",1.5,0],["B",0.5,0.5]]' callercallee s-rec --focus A
c T3.callees     '[.callees[]|[.name,.inc,.exc]]' '[["C",1,1],["B",0.5,0]]' callercallee s-rec --focus A

# T4 — Callers view, innermost-instance rule
c T4.top         '.tree|[.name,.inc,.exc]' '["A",2,1]' callers s-rec --focus A
c T4.kids        '[.tree.children[]|[.name,.inc,.exc]]|sort' '[["B",1,0],["Main",1,0]]' callers s-rec --focus A
c T4.chain       '.tree|at(["B","A","Main","ROOT"])|.inc' 1 callers s-rec --focus A
c T4.main        '.tree|at(["Main","ROOT"])|.inc' 1 callers s-rec --focus A

# T5 — Callees view
c T5.callees     '[.tree|.inc,.exc,([.children[]|[.name,.inc,.exc]])]' '[2,1,[["C",1,1],["B",0,0]]]' callees s-rec --focus A

# T6 — three-level recursion
c T6.byname      '[row("A")|.exc,.inc] + [row("B")|.exc,.inc]' '[6,6,0,6]' byname s-rec3
c T6.ccA         '[.focus.inc,.focus.exc,[.callers[]|[.name,.inc]],[.callees[]|[.name,.inc,.exc]]]' '[6,2,[["B",4],["Main",2]],[["B",4,0]]]' callercallee s-rec3 --focus A
c T6.ccB         '[.focus.inc,.focus.exc,[.callers[]|[.name,.inc,.exc]],[.callees[]|[.name,.inc,.exc]]]' '[6,0,[["A",6,0]],[["A",6,3]]]' callercallee s-rec3 --focus B
c T6.calleesA    '[.tree.children[]|[.name,.inc]]' '[["B",0]]' callees s-rec3 --focus A
c T6.calleesB    '[.tree.children[]|[.name,.inc,.exc]]' '[["A",6,6]]' callees s-rec3 --focus B

# T7 — entry groups
c T7.tree        '.tree|at(["module app <<app!Main>>","module lib <<lib!A>>"])|[.inc,.exc,([.children[]|[.name,.inc,.exc]])]' '[7,2,[["module app <<app!Cb>>",5,4]]]' calltree s-grp -g "$G_ENTRIES"
c T7.leaf        '.tree|at(["module app <<app!Main>>","module lib <<lib!A>>","module app <<app!Cb>>","module lib <<lib!C>>"])|[.inc,.exc]' '[1,1]' calltree s-grp -g "$G_ENTRIES"
c T7.byname      '[.rows[]|[.name,.exc,.inc]]|sort' '[["ROOT",0,7],["module app <<app!Cb>>",4,5],["module app <<app!Main>>",0,7],["module lib <<lib!A>>",2,7],["module lib <<lib!C>>",1,1]]' byname s-grp -g "$G_ENTRIES"

# T8 — plain groups
c T8.tree        '[.tree|at(["module app","module lib"])|.inc,.exc] + [.tree|at(["module app","module lib","module app"])|.inc,.exc] + [.tree|at(["module app","module lib","module app","module lib"])|.inc,.exc]' '[7,2,5,4,1,1]' calltree s-grp -g '{%}!->module $1'
c T8.byname      '[row("module app")|.exc,.inc] + [row("module lib")|.exc,.inc]' '[4,7,3,7]' byname s-grp -g '{%}!->module $1'

# T9 — exclusion entry
c T9.tree        '.tree|at(["module app <<app!Main>>","module lib <<lib!A>>"])|[.inc,.exc,([.children[]|[.name,.inc,.exc]])]' '[7,0,[["module app <<app!Cb>>",4,4],["lib!B",3,2]]]' calltree s-grp -g 'lib!B->;{%}!=>module $1'
c T9.deep        '.tree|at(["module app <<app!Main>>","module lib <<lib!A>>","lib!B","module app <<app!Cb>>","module lib <<lib!C>>"])|.inc' 1 calltree s-grp -g 'lib!B->;{%}!=>module $1'

# T10 — chaining vs termination
c T10a           '[.tree|at(["app!Main","X"])|.inc,.exc] + [.tree|at(["app!Main","X","app!Cb"])|.inc,.exc] + [.tree|at(["app!Main","X","app!Cb","X"])|.inc]' '[7,2,5,4,1]' calltree s-grp -g 'lib!->LIBRARY;LIBRARY->X'
c T10b           '[.tree|at(["app!Main","LIBRARY <<lib!A>>"])|.inc,.exc] + [.tree|at(["app!Main","LIBRARY <<lib!A>>","app!Cb","LIBRARY <<lib!C>>"])|.inc]' '[7,2,1]' calltree s-grp -g 'lib!=>LIBRARY;LIBRARY->X'
c T10c           '.tree|at(["Main in app","A in lib"])|[.inc,.exc,([.children[]|[.name,.inc,.exc]])]' '[7,0,[["Cb in app",4,4],["B in lib",3,2]]]' calltree s-grp -g '{%}!{%}->$2 in $1'
c T10c.deep      '.tree|at(["Main in app","A in lib","B in lib","Cb in app","C in lib"])|.inc' 1 calltree s-grp -g '{%}!{%}->$2 in $1'

# T11 — IncPats vs ExcPats on an inner entry member
c T11a           '.tree.inc' 0 calltree s-grp -g '{%}!=>module $1' -i 'lib!B'
c T11b           '[.tree.inc, (.tree|at(["module app <<app!Main>>","module lib <<lib!A>>","module app <<app!Cb>>"])|.exc)]' '[4,4]' calltree s-grp -g '{%}!=>module $1' -x 'lib!B'
c T11c           '.tree.inc' 7 calltree s-grp -g '{%}!=>module $1' -i 'module lib'

# T12 — FoldPats and the Fold column
c T12.c          'row("C")|[.exc,.inc,.fold,.exc_count]' '[90,90,5,2]' byname s-fold -f Helper
c T12.absent     '[.rows[]|select(.name=="Helper")]|length' 0 byname s-fold -f Helper

# T13 — Fold%
c T13a.main      '.tree|at(["Main"])|[.inc,.exc,.fold]' '[100,1,1]' calltree s-fold -p 5
c T13a.kids      '[.tree|at(["Main"])|.children[]|[.name,.inc,.exc]]' '[["C",90,85],["B",9,0]]' calltree s-fold -p 5
c T13a.deep      '[.tree|at(["Main","C","Helper"])|.inc] + [.tree|at(["Main","B","X"])|.inc]' '[5,9]' calltree s-fold -p 5
c T13a.byname    '[row("X").inc, ([.rows[]|select(.name=="A")]|length)]' '[9,0]' byname s-fold -p 5
c T13b           '.tree|at(["module app <<app!Main>>"])|[.inc,.exc,.fold,([.children[]|[.name,.inc,.exc]])]' '[7,4,4,[["module lib <<lib!B>>",3,2]]]' calltree s-grp -g '{%}!=>module $1' -f 'module lib <<lib!A>>'
c T13b.deep      '.tree|at(["module app <<app!Main>>","module lib <<lib!B>>","module app <<app!Cb>>","module lib <<lib!C>>"])|.inc' 1 calltree s-grp -g '{%}!=>module $1' -f 'module lib <<lib!A>>'
c T13c           '[.tree.inc, ([.tree|at(["Main"])|.children[]|[.name,.inc]]), (.tree|at(["Main","A","X"])|.inc)]' '[10,[["B",9],["A",1]],1]' calltree s-fold -i X -p 10

# T14 — IncPats list and alternation
c T14.and        '.tree.inc' 9 calltree s-fold -i 'X;B'
c T14.or         '.tree.inc' 100 calltree s-fold -i 'A|B'
c T14.anchored   '.tree.inc' 10 calltree s-fold -i '^A|^B'

# T15 — time range, scale-to-data
c T15            '.summary|[.metric,.first,.last]' '[94,2,3]' calltree s-fold --start 2 --end 3

# T16 — time range, time-metric proration
c T16.a          'row("A")|.exc*10000|round' 100012 byname s-tm --scaling time --start 5 --end 25
c T16.b          'row("B")|.exc' 10 byname s-tm --scaling time --start 5 --end 25
c T16.root       '[row("ROOT")|(.inc*10000|round),.inc_count]' '[200012,3]' byname s-tm --scaling time --start 5 --end 25
c T16.firstlast  '.summary|[(.first*10000|round),(.last*10000|round)]' '[49994,250006]' byname s-tm --scaling time --start 5 --end 25
c T16.when.a     'row("A").when' '"99999999.______________.99999999"' byname s-tm --scaling time --start 5 --end 25
c T16.when.b     'row("B").when' '"________9999999999999999________"' byname s-tm --scaling time --start 5 --end 25
# D4: the default End is max(time + |metric|) = 32, so nothing is clipped.
c T16.full       '[.summary.end, row("A").inc, row("B").inc]' '[32,20,12]' byname s-tm --scaling time

# T18 — stackless samples (JSON input)
c T18.root       '.tree|[.inc,.exc]' '[7,5]' calltree t18.perfView.json
c T18.a          '.tree|at(["A"])|[.inc,([.children[]|[.name,.inc]]|sort)]' '[2,[["B",1],["C",1]]]' calltree t18.perfView.json
c T18.first      '[(.tree|at(["A","C"])|.first), .summary.first]' '[0,0]' calltree t18.perfView.json

# T19 — diff with PID/TID normalisation (the diff window's default GroupPats)
c T19.tree       '[.tree.inc, (.tree|at(["myapp","Thread","app!main"])|.inc)]' '[10,10]' diff s-base s-test
c T19.f          '.tree|at(["myapp","Thread","app!main","app!f"])|[.inc,.exc,([.children[]|[.name,.inc,.exc]])]' '[10,5,[["app!x",5,5]]]' diff s-base s-test
c T19.g          '.tree|at(["myapp","Thread","app!main","app!g"])|[.inc,.when]' '[0,"________________________________"]' diff s-base s-test
c T19.summary    '.summary|[.count,.end]' '[0,52]' diff s-base s-test

# T20 — diff without normalisation
c T20.procs      '[.tree.inc, (.tree|at(["Process myapp (100)"])|.inc,.inc_pct), (.tree|at(["Process myapp (200)"])|.inc,.inc_pct,.inc_count)]' '[10,110,1100,-100,-1000,-3]' diff s-base s-test -g ''
c T20.byname     '[row("app!f")|.exc,.inc] + [row("app!x")|.exc,.inc] + [row("app!g")|.exc,.inc] + [row("app!main")|.exc,.inc]' '[5,10,5,5,0,0,0,10]' diff s-base s-test -g '' --view byname

# T21 — Overweight
c T21.head       '[.base,.test,.delta,.delta_pct]' '[100,110,10,10]' overweight s-base s-test
c T21.rows       '[.rows[]|[.name,.base,.test,.delta,.responsibility_pct,.overweight_pct,.interest]]' '[["app!x",25,30,5,50,200,5],["app!f",50,60,10,100,200,5],["ROOT",100,110,10,100,100,2],["app!main",100,110,10,100,100,2]]' overweight s-base s-test

# T22 — perf script under D3: metric = period (ms for cpu-clock), every sample kept, every
# header form parses.
# T22: thread frames carry their comm, processes their main thread's (issue 14; guide
# "Process and thread names"), where PerfView joins every comm of the pid.
c T22a.root      '[.tree.inc, .summary.end, .summary.scaling, .summary.count]' '[1.25,6000.25,"time",5]' calltree t22a.data.txt
c T22a.first     '.tree|at(["Process myapp (100)","Thread (101) myapp","myapp!main"])|[.inc,.exc,([.children[]|[.name,.inc,.first]])]' '[0.75,0.25,[["libfoo.so!mid",0.25,0],["libfoo.so!leaf",0.25,2000]]]' calltree t22a.data.txt
c T22a.unknown   '.tree|at(["Process myapp (100)","Thread (102) myapp","unknown!0x0","libbar.so!0x7f0000003000","kernel.kallsyms!native_safe_halt"])|[.inc,.first]' '[0.25,500]' calltree t22a.data.txt
c T22a.other     '.tree|at(["Process other (200)","Thread (200) other","ld-linux-x86-64.so.2!work"])|[.inc,.first]' '[0.25,3000]' calltree t22a.data.txt
c T22b.default   '[.tree.inc, (.tree|at(["Process a b (10)","Thread (11) a b","liba.so!f1"])|.inc,.first)]' '[1,1,0]' calltree t22b.data.txt
c T22b.cycles    '[.tree.inc, ([.tree|at(["Process c (20)","Thread (20) c"])|.children[]|.name]|sort)]' '[2,["ld-linux-x86-64.so.2!f3","libb.so!f2"]]' calltree t22b.data.txt --event cycles
c T22b.swapper   '.tree|at(["Process swapper (0)","Thread (0) swapper","kernel.kallsyms!native_safe_halt"])|.inc' 1 calltree t22b.data.txt --event cpu-clock
c T22c           '[.tree.inc, (.tree|at(["Process d (30)","Thread (31) d"])|.inc), (.tree|at(["Process d (30)","Thread (30) d","liba.so!f4"])|.first)]' '[5,4,7]' calltree t22c.data.txt

# T23 — module entries and `%` under D1/D2
c T23.a          '.tree|at(["module mod <<mod!f>>"])|[.children[]|.name]' '["module ? <<?!?>>"]' calltree t23 -g '{%}!=>module $1'
c T23.b          '.tree|at(["module  <<!h>>"])|[.children[]|.name]' '["module x-y <<x-y!g>>"]' calltree t23 -g '{%}!=>module $1'

# T24 — full vs short names; a diff keeps names (D10)
c T24.display    '.tree|at(["libc.so.6!main","mod.dll!Func"])|.inc' 3 calltree t24
c T24.incpath    '.tree.inc' 3 calltree t24 -i dir
c T24.diff       'row("mod.dll!Func")|.inc' 2 diff t24-base t24 --view byname

# T25 — `{` in names (D6: no cutting)
c T25.byname     '[row("Foo{T}").exc, row("Foo{U}").exc, row("{X}").exc]' '[1,2,4]' byname t25
c T25.cc         '[.focus.inc, [.callers[]|[.name,.inc]]]' '[2,[["Main",2]]]' callercallee t25 --focus 'Foo{U}'

# T27 — XML quirks fixed (D7)
c T27a           '[(.tree|.exc), (.tree|at(["A"])|.inc,.exc)]' '[5,1,0]' calltree t27a
c T27b           'row("app!main")|[.inc,.exc]' '[4,1]' byname t27b
