#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""stackview's GCStats and JITStats against the events themselves.

  reports_oracle.py gcstats|jitstats EVENTS.json REPORT.json

EVENTS: `stackview events --json FILE`; REPORT: `stackview report gcstats|jitstats --json FILE`.
Computes each number again from the listed events, by the definitions of docs/events.md (a GC
is a GC/Start..GC/Stop pair by Count; its pause the SuspendEEStart (for GC) .. RestartEEStop
that holds its start; heap after the sum of the next HeapStats' GenerationSize fields; JIT
time JittingStarted .. LoadVerbose by MethodID on one thread) and compares. Exits 1 on any
difference, printing them."""
import json
import sys

RT = "Microsoft-Windows-DotNETRuntime/"
MB = 1048576.0


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def gcstats(events):
    procs = {}
    for e in events:
        k = e["event"]
        if not k.startswith(RT + "GC/") or e["pid"] is None:
            continue
        p = procs.setdefault(e["pid"], {"gcs": [], "sus": None, "first": e["ms"], "last": e["ms"], "alloc": 0.0, "ticks": 0})
        p["last"] = e["ms"]
        f, name = e["fields"], k[len(RT):]
        if name == "GC/SuspendEEStart" and f.get("Reason") in ("SuspendForGC", "SuspendForGCPrep"):
            p["sus"] = [e["ms"], None]
        elif name == "GC/SuspendEEStop" and p["sus"]:
            p["sus"][1] = e["ms"]
        elif name == "GC/Start":
            if p["gcs"] and p["gcs"][-1]["number"] == int(f.get("Count", 0)) and p["gcs"][-1]["duration_ms"] is None:
                continue  # .NET 4.5's second GC/Start (version 2) of the same GC
            s = p["sus"]
            p["gcs"].append({"number": int(f.get("Count", 0)), "gen": int(f.get("Depth", 0)), "reason": f.get("Reason", "?"),
                             "start_ms": e["ms"], "pause_ms": None, "duration_ms": None, "after_mb": None,
                             "promoted_mb": None, "sus_start": s[0] if s else None,
                             "suspend_ms": s[1] - s[0] if s and s[1] is not None else None})
        elif name == "GC/RestartEEStop":
            if p["sus"]:
                for g in p["gcs"]:
                    if g["pause_ms"] is None and g["sus_start"] == p["sus"][0]:
                        g["pause_ms"] = e["ms"] - p["sus"][0]
            p["sus"] = None
        elif name == "GC/Stop":
            for g in reversed(p["gcs"]):
                if g["number"] == int(f.get("Count", -1)) and g["duration_ms"] is None:
                    g["duration_ms"] = e["ms"] - g["start_ms"]
                    break
        elif name == "GC/HeapStats":
            for g in reversed(p["gcs"]):
                if g["duration_ms"] is not None and g["after_mb"] is None:
                    g["after_mb"] = sum(int(f.get(f"GenerationSize{i}", 0)) for i in range(5)) / MB
                    g["promoted_mb"] = sum(int(f.get(f"TotalPromotedSize{i}", 0)) for i in range(5)) / MB
                    break
        elif name == "GC/AllocationTick":
            p["ticks"] += 1
            p["alloc"] += int(f.get("AllocationAmount64", f.get("AllocationAmount", 0))) / MB
    return procs


def main():
    kind, events, report = sys.argv[1], json.load(open(sys.argv[2]))["events"], json.load(open(sys.argv[3]))["processes"]
    bad = []
    if kind == "gcstats":
        want = gcstats(events)
        if sorted(want) != sorted(p["pid"] for p in report):
            bad.append(f"processes {sorted(want)} vs {sorted(p['pid'] for p in report)}")
        for p in report:
            w = want.get(p["pid"])
            if not w:
                continue
            if len(w["gcs"]) != len(p["gcs"]):
                bad.append(f"pid {p['pid']}: {len(p['gcs'])} GCs, the events make {len(w['gcs'])}")
                continue
            for a, b in zip(w["gcs"], p["gcs"]):
                for key in ("number", "gen", "reason"):
                    if a[key] != b[key]:
                        bad.append(f"pid {p['pid']} GC {a['number']}: {key} {b[key]!r}, events {a[key]!r}")
                for key in ("start_ms", "pause_ms", "suspend_ms", "duration_ms", "after_mb", "promoted_mb"):
                    if not close(a[key], b[key]):
                        bad.append(f"pid {p['pid']} GC {a['number']}: {key} {b[key]}, events {a[key]}")
            pause = sum(g["pause_ms"] or 0 for g in w["gcs"])
            span = w["last"] - w["first"]
            if not close(pause, p["all"]["total_pause_ms"]) or not close(100 * pause / span if span else 0, p["pct_paused"]):
                bad.append(f"pid {p['pid']}: pause {p['all']['total_pause_ms']} ({p['pct_paused']} %), events {pause}")
            if not close(w["alloc"], p["alloc_mb"]) or w["ticks"] != p["alloc_ticks"]:
                bad.append(f"pid {p['pid']}: allocated {p['alloc_mb']} MB in {p['alloc_ticks']}, events {w['alloc']} in {w['ticks']}")
            for g in range(3):
                gs = [x for x in w["gcs"] if min(max(x["gen"], 0), 2) == g]
                if len(gs) != p["gen"][g]["count"] or not close(max([x["pause_ms"] or 0 for x in gs] + [0]), p["gen"][g]["max_pause_ms"]):
                    bad.append(f"pid {p['pid']} gen {g}: rollup {p['gen'][g]}")
    else:
        starts, got = {}, {}
        for e in events:
            k, f = e["event"], e["fields"]
            if k == RT + "Method/JittingStarted":
                starts.setdefault((e["tid"], f.get("MethodID")), []).append(e["ms"])
            elif k == RT + "Method/LoadVerbose" and "Jitted" in f.get("MethodFlags", ""):
                s = starts.get((e["tid"], f.get("MethodID")))
                got.setdefault(e["pid"], []).append(e["ms"] - s.pop() if s else None)
        for p in report:
            w = got.get(p["pid"], [])
            if len(w) != p["methods_jitted"]:
                bad.append(f"pid {p['pid']}: {p['methods_jitted']} methods, the events make {len(w)}")
            if not close(sum(x for x in w if x and x > 0), p["jit_ms"]):
                bad.append(f"pid {p['pid']}: {p['jit_ms']} ms of JIT, the events make {sum(x for x in w if x)}")
            times = sorted((x for x in w if x is not None), reverse=True)[:len(p["methods"])]
            mine = [m["jit_ms"] for m in p["methods"] if m["jit_ms"] is not None][:len(times)]
            if any(not close(a, b) for a, b in zip(times, mine)):
                bad.append(f"pid {p['pid']}: the longest JIT times {mine[:5]}, events {times[:5]}")
        if sorted(got) != sorted(p["pid"] for p in report):
            bad.append(f"processes {sorted(got)} vs {sorted(p['pid'] for p in report)}")
    for b in bad:
        print("DIFFERS:", b)
    print(f"{kind}: {len(report)} processes, {len(bad)} differences")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
