#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Two `stackview events --json` listings of one recording are the same events: the same
number, and event by event the same time, event, process, pid, tid, CPU, stack flag and
fields. Used for a perf.data file against the `perf script` text perf printed of it.

usage: events_same.py A.json B.json [--shift] [--fields-of-tracepoints] [--no-tid]
  --shift                  compare times from each listing's first event (their time axes
                           may start at different samples)
  --fields-of-tracepoints  compare no fields of cpu-clock and task-clock samples (perf
                           script's text prints none of them)
  --no-tid                 the text has no tid (perf script's default fields)
Exit 0 when the same, 1 with the first differences on stderr."""
import json
import sys


def main(argv):
    flags = {a for a in argv[1:] if a.startswith("--")}
    paths = [a for a in argv[1:] if not a.startswith("--")]
    a, b = (json.load(open(p))["events"] for p in paths)
    problems = []
    if len(a) != len(b):
        problems.append(f"{len(a)} events against {len(b)}")
    a0 = a[0]["ms"] if a and "--shift" in flags else 0
    b0 = b[0]["ms"] if b and "--shift" in flags else 0
    keys = ["event", "process", "pid", "cpu", "has_stack"]
    if "--no-tid" not in flags:
        keys.append("tid")
    for i, (x, y) in enumerate(zip(a, b)):
        if abs((x["ms"] - a0) - (y["ms"] - b0)) > 5e-7:
            problems.append(f"event {i}: ms {x['ms']} against {y['ms']}")
        for k in keys:
            if x.get(k) != y.get(k):
                problems.append(f"event {i} ({x['event']} at {x['ms']}): {k} {x.get(k)!r} against {y.get(k)!r}")
        clock = x["event"].split(":")[0] in ("cpu-clock", "task-clock")
        if "--fields-of-tracepoints" not in flags or not clock:
            if x.get("fields") != y.get("fields"):
                problems.append(f"event {i} ({x['event']} at {x['ms']}): fields {x.get('fields')} against {y.get('fields')}")
        if len(problems) > 5:
            break
    if problems:
        print("\n".join(problems[:6]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
