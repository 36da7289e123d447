#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""stackview's event listing against TraceEvent's own test baselines of the same trace.

  events_baseline.py BASELINE.txt EVENTS.json [--only PREFIX,...] [--require KIND...]

BASELINE: TraceEvent's ETW test output (lines `EVENT MS: NAME PID=..; TID=..; PName=..;
ProceNum=..; DataLen=..; field=value; ...`) or its EventPipe one (`NAME, COUNT, <Event MSec=
"MS" PID="P" ... field="value"/>`). EVENTS: `stackview events --json` of the trace.

Every baseline event must be in the listing: same name, time (to the baseline's 3 decimals),
pid, tid, CPU and payload size where the baseline gives them. Every field both sides have
must agree after TraceEvent's display is undone: thousands separators, values cut at 20
characters with "...", hex widths, dates as yy/MM/dd HH:mm:ss.ff (TraceEvent shows 64-bit
integers signed). A kind given with --require must have every baseline field (but those
TraceEvent computes: listed in COMPUTED). Prints a table per kind; exits 1 on any difference.
"""
import json
import re
import sys
from datetime import datetime

COMPUTED = {  # fields TraceEvent derives, not in the payload (or shows as 0 for the
    # versions of an event that do not have them)
    "GC/HeapStats": {"TotalHeapSize", "TotalPromoted", "Depth"},
    "GC/Start": {"ClientSequenceNumber"},
    # the kernel's: a build time from the TimeDateStamp, a thread's parent from the thread
    # that started it, a disk I/O's times and file from the events around it
    "Image/Load": {"BuildTime"}, "Image/Unload": {"BuildTime"}, "Image/DCStart": {"BuildTime"},
    "Image/DCStop": {"BuildTime"},
    # a disk I/O's service time: TraceEvent's estimate from the completions it has indexed
    "DiskIO/Read": {"DiskServiceTimeMSec"}, "DiskIO/Write": {"DiskServiceTimeMSec"},
    "Thread/Start": {"ParentThreadID", "ParentProcessID"}, "Thread/Stop": {"ParentThreadID", "ParentProcessID"},
    "Thread/DCStart": {"ParentThreadID", "ParentProcessID"}, "Thread/DCStop": {"ParentThreadID", "ParentProcessID"},
}


# Where TraceEvent's own decoding is wrong, and how: listed, not counted as differences.
KNOWN = {
    "Windows Kernel/DiskIO/FlushBuffers": "TraceEvent's TID is the low half of HighResResponseTime (the "
                                          "elapsed ticks), not IssuingThreadId, and its PID none",
    "Microsoft-Windows-Kernel-File/Create": "TraceEvent decodes it with its kernel FileIO/Create class (the "
                                            "disposition byte cut off CreateOptions, share access and attributes "
                                            "by its enum names, a drive path), not by the fields the trace's "
                                            "TRACE_EVENT_INFO describes",
}


def parse_etw(line):
    m = re.match(r"EVENT ([\d,.]+): (.+?) (PID=.*)$", line)
    if not m:
        return None
    ms = float(m.group(1).replace(",", ""))
    fields = {}
    for part in m.group(3).split("; "):
        if "=" in part:
            k, v = part.split("=", 1)
            fields[k.strip()] = v.rstrip("; ").rstrip()
    return m.group(2), ms, fields


def parse_pipe(line):
    m = re.match(r"([^,]+), \d+, <Event MSec=\s*\"([\d.,]+)\" (.*)/>", line)
    if not m:
        return None
    fields = dict(re.findall(r'(\w+)="([^"]*)"', m.group(3)))
    return m.group(1), float(m.group(2).replace(",", "")), fields


def same(want, got):
    """Does TraceEvent's display `want` show stackview's value `got`?"""
    if want == got:
        return True
    cut = want.endswith("...")
    w = want[:-3] if cut else want
    if cut and got.startswith(w):
        return True
    if cut and re.fullmatch(r"-?[\d,]+", w) and got.startswith(w.replace(",", "")):  # a number cut short
        return True
    try:  # numbers: separators, hex, 64-bit signed display
        wn = int(w.replace(",", ""), 16) if w.lower().startswith("0x") else int(w.replace(",", ""))
        gn = int(got, 16) if got.lower().startswith("0x") else int(got)
        return wn == gn or wn == gn - (1 << 64) or wn == gn - (1 << 32)
    except ValueError:
        pass
    if re.fullmatch(r"-?[\d,]*\.\d+", w):  # TraceEvent's fixed decimals: ours rounded to them
        try:
            d = len(w.split(".")[1])
            return abs(float(got) - float(w.replace(",", ""))) <= 0.5 * 10 ** -d + 1e-9
        except ValueError:
            return False
    m = re.match(r"(\d\d)/(\d\d)/(\d\d) (\d\d):(\d\d):(\d\d)\.(\d+)", w)
    g = re.match(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d+)", got)
    if m and g:  # to the second: TraceEvent's SYSTEMTIME milliseconds are not the field's
        yy = int(m[1])  # two digits: 70-99 are the 1900s (a Unix-epoch default shows as 70/01/01)
        a = datetime((1900 if yy >= 70 else 2000) + yy, int(m[2]), int(m[3]), int(m[4]), int(m[5]), int(m[6]))
        b = datetime(int(g[1]), int(g[2]), int(g[3]), int(g[4]), int(g[5]), int(g[6]))
        return a == b
    return False


def main():
    base, evs = sys.argv[1], json.load(open(sys.argv[2]))["events"]
    opts = sys.argv[3:]
    require = opts[opts.index("--require") + 1:] if "--require" in opts else []
    # --only PREFIX,...: compare only the kinds whose names start so
    only = opts[opts.index("--only") + 1].split(",") if "--only" in opts else None
    index = {}
    for e in evs:
        index.setdefault(e["event"], []).append(e)
    per = {}
    bad = []
    for line in open(base, encoding="utf-8", errors="replace"):
        p = parse_etw(line) if line.startswith("EVENT ") else parse_pipe(line)
        if not p:
            continue
        name, ms, f = p
        if only and not any(name.startswith(x) for x in only):
            continue
        st = per.setdefault(name, [0, 0, 0, set()])
        st[0] += 1
        def ident(v):  # not known: TraceEvent's -1
            return "-1" if v is None else str(v)
        cands = [e for e in index.get(name, []) if abs(e["ms"] - ms) <= 0.0005001
                 and ("PID" not in f or ident(e["pid"]) == f["PID"].replace(",", ""))
                 and ("TID" not in f or ident(e["tid"]) == f["TID"].replace(",", ""))]
        if not cands and name in KNOWN:
            print(f"known: {name} at {ms}: {KNOWN[name]}")
            continue
        if not cands:
            bad.append(f"{name} at {ms}: not listed")
            continue
        # several at the same time (a rundown): the one whose fields agree most
        e = max(cands, key=lambda x: (str(x["data_len"]) == f.get("DataLen", "").replace(",", ""),
                                     sum(1 for k, v in f.items() if k in x["fields"] and same(v, x["fields"][k]))))
        if "ProceNum" in f and e["cpu"] is not None and str(e["cpu"]) != f["ProceNum"]:
            bad.append(f"{name} at {ms}: CPU {e['cpu']}, baseline {f['ProceNum']}")
        if "DataLen" in f and str(e["data_len"]) != f["DataLen"].replace(",", ""):
            bad.append(f"{name} at {ms}: {e['data_len']} payload bytes, baseline {f['DataLen']}")
        short = name.split("/", 1)[1] if "/" in name else name
        for k, v in f.items():
            if k in ("PID", "TID", "PName", "ProceNum", "DataLen", "MSec", "EventName", "TimeStamp"):
                continue
            if k in e["fields"]:
                if same(v, e["fields"][k]):
                    st[1] += 1
                elif name in KNOWN:
                    print(f"known: {name} at {ms}: {k}={e['fields'][k]!r}, baseline {v!r}: {KNOWN[name]}")
                else:
                    bad.append(f"{name} at {ms}: {k}={e['fields'][k]!r}, baseline {v!r}")
            elif v and k not in COMPUTED.get(short, ()):  # an empty one: not in the payload either
                st[2] += 1
                st[3].add(k)
    for name in require:
        if name not in per:
            bad.append(f"{name}: not in the baseline")
        elif per[name][2]:
            bad.append(f"{name}: fields not decoded: {', '.join(sorted(per[name][3]))}")
    for name, (n, ok, missing, _) in sorted(per.items()):
        print(f"{n:4} events {ok:5} fields equal {missing:4} not decoded  {name}")
    for b in bad:
        print("DIFFERS:", b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
