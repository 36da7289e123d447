#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The user docs as a reader sees them: every Markdown table renders (one header row, its
# separator right below, every row with the header's number of cells), every relative link
# names a page that exists and, with #anchor, a heading of that page, and no page sends the
# reader to what they do not have (the project's spec sections, issue numbers, ../shared).
# Prints one line per problem, FILE:LINE: what; exits 1 when there is any.
import os
import re
import sys

INTERNAL = [(re.compile(r"\bspec\s*§|\bspec/|semantics\.md|design\.md"), "refers to the project's spec"),
            (re.compile(r"\bissues?\s+\d+"), "refers to an issue number"),
            (re.compile(r"\.\./shared"), "refers to ../shared, which a clone does not have")]


def cells(line):
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    # a `|` inside code spans or escaped does not split a cell
    out, cur, code = [], "", False
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            cur += body[i:i + 2]
            i += 2
            continue
        if ch == "`":
            code = not code
        if ch == "|" and not code:
            out.append(cur)
            cur = ""
        else:
            cur += ch
        i += 1
    out.append(cur)
    return out


def anchor(title):
    a = title.strip().lower()
    a = re.sub(r"[^\w\- ]", "", a)
    return a.replace(" ", "-")


def main(args):
    # --developer FILE...: pages for the project's developers (architecture, README), which
    # may name the spec and ../shared; the other checks still apply
    internal_ok = "--developer" in args
    paths = [a for a in args if a != "--developer"]
    problems = []
    anchors = {}
    for p in paths:
        anchors[os.path.basename(p)] = {anchor(m.group(1)) for m in re.finditer(r"^#+ (.*)$", open(p).read(), re.M)}
    for p in paths:
        lines = open(p).read().split("\n")
        fence = False
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.startswith("```"):
                fence = not fence
            if not fence:
                for rx, what in INTERNAL if not internal_ok else []:
                    if rx.search(line):
                        problems.append("%s:%d: %s" % (p, i + 1, what))
                for m in re.finditer(r"\]\(([^)#\s]*)(#[^)\s]*)?\)", line):
                    target, frag = m.group(1), m.group(2)
                    if re.match(r"[a-z]+:", target):
                        continue
                    page = os.path.basename(target) if target else os.path.basename(p)
                    if target and not os.path.exists(os.path.join(os.path.dirname(p), target)):
                        problems.append("%s:%d: link to %s: no such file" % (p, i + 1, target))
                    elif frag and page in anchors and frag[1:] not in anchors[page]:
                        problems.append("%s:%d: link to %s%s: no such heading" % (p, i + 1, target, frag))
            if not fence and line.lstrip().startswith("|"):
                start = i
                while i < len(lines) and lines[i].lstrip().startswith("|"):
                    i += 1
                block = lines[start:i]
                ncol = len(cells(block[0]))
                if len(block) < 2 or not re.fullmatch(r"\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?", block[1].strip()):
                    problems.append("%s:%d: table without a separator under its header" % (p, start + 1))
                    continue
                if len(cells(block[1])) != ncol:
                    problems.append("%s:%d: table separator has %d cells, header %d" % (p, start + 2, len(cells(block[1])), ncol))
                for k, row in enumerate(block[2:], start + 3):
                    if re.fullmatch(r"\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?", row.strip()):
                        problems.append("%s:%d: a second separator row (two header rows)" % (p, k))
                    elif len(cells(row)) != ncol:
                        problems.append("%s:%d: row has %d cells, header %d" % (p, k, len(cells(row)), ncol))
                continue
            i += 1
    for pr in problems:
        print(pr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
