#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes a small PDB (MSF 7.00, 512-byte blocks) whose contents are known, for the tests and
# as the PDB fuzz target's seed: the info stream (GUID, age 3), a DBI stream with two modules
# (a C++ one and a MASM one) and the section header stream, their procedure symbols, and
# public symbols (one inside a procedure, one alone, one C++-decorated). With "omap", the
# image was rewritten after linking: an OMAP moves the second section by 0x1000. Source
# lines: C13 line tables (DEBUG_S_LINES) naming their files through the modules' checksums
# (DEBUG_S_FILECHKSMS) and the /names stream, a named stream of the info stream.
#
#   section 1 .text at RVA 0x1000, section 2 .text2 at RVA 0x3000 (0x4000 with omap)
#   procedures: 1:0x10 size 0x20 "ns::Widget::draw", 1:0x40 size 0x8 "helper",
#               2:0x0 size 0x10 "_asm_entry" (MASM: x86 name, shown "asm_entry")
#   publics: 1:0x18 "?draw@Widget@ns@@QAEXXZ" (inside draw), 1:0x100 "_lonely@8" (stdcall),
#            2:0x80 "?orphan@@YAXXZ" (shown "orphan")
#   lines: draw 1:0x10 +0 line 10, +4 line 11, +0x10 line 12 (src\\draw.cpp); helper 1:0x40 +0
#          lines 20 and 21 (one address: the first gets no code); asm 2:0x0 line 5 (asm.asm)
# usage: gen_pdb.py OUT.pdb [omap]
import struct
import sys

BS = 512
MAGIC = b"Microsoft C/C++ MSF 7.00\r\n\x1aDS\0\0\0"


def rec(kind, body):
    body = body + b"\0" * (-(len(body) + 4) % 4)
    return struct.pack("<HH", len(body) + 2, kind) + body


def proc(off, seg, size, name):
    return rec(0x1110, struct.pack("<IIIIIIIIHB", 0, 0, 0, size, 0, 0, 0, off, seg, 0) + name + b"\0")


def compile3(lang):
    return rec(0x113C, struct.pack("<I", lang) + b"\0" * 28 + b"gen\0")


def pub(off, seg, name):
    return rec(0x110E, struct.pack("<IIH", 2, off, seg) + name + b"\0")


def section(name, va, size):
    return name.ljust(8, b"\0") + struct.pack("<IIIIIIHHI", size, va, size, 0, 0, 0, 0, 0, 0x60000020)


def module(stream, symbytes, name, c13=0):
    e = struct.pack("<I", 0) + b"\0" * 28 + struct.pack("<HHIIIHHIII", 0, stream, symbytes, 0, c13, 0, 0, 0, 0, 0)
    e += name + b"\0" + name + b"\0"
    return e + b"\0" * (-len(e) % 4)


def sub(kind, body):
    return struct.pack("<II", kind, len(body)) + body + b"\0" * (-len(body) % 4)


def lines(seg, off, code, entries):
    """A DEBUG_S_LINES subsection with one block (the module's first checksum entry)."""
    body = struct.pack("<IHHI", off, seg, 0, code)
    body += struct.pack("<III", 0, len(entries), 12 + 8 * len(entries))
    for o, ln in entries:
        body += struct.pack("<II", o, ln | 0x80000000)
    return sub(0xF2, body)


def checksums(name_off):
    return sub(0xF4, struct.pack("<IBB", name_off, 0, 0) + b"\0\0")


def main():
    omap = len(sys.argv) > 2 and sys.argv[2] == "omap"
    mod1 = struct.pack("<I", 4) + compile3(1) + proc(0x10, 1, 0x20, b"ns::Widget::draw") + proc(0x40, 1, 8, b"helper")
    mod2 = struct.pack("<I", 4) + compile3(3) + proc(0, 2, 0x10, b"_asm_entry")
    names = b"\0src\\draw.cpp\0asm.asm\0"
    c13a = checksums(1) + lines(1, 0x10, 0x20, [(0, 10), (4, 11), (0x10, 12)]) + lines(1, 0x40, 8, [(0, 20), (0, 21)])
    c13b = checksums(names.index(b"asm.asm")) + lines(2, 0, 0x10, [(0, 5)])
    sym1, sym2 = len(mod1), len(mod2)
    mod1 += c13a
    mod2 += c13b
    pubs = pub(0x18, 1, b"?draw@Widget@ns@@QAEXXZ") + pub(0x100, 1, b"_lonely@8") + pub(0x80, 2, b"?orphan@@YAXXZ")
    sects = section(b".text", 0x1000, 0x200) + section(b".text2", 0x3000, 0x100)
    # streams: 0 old directory, 1 info, 2 TPI, 3 DBI, 4 IPI, 5 symbol records, 6 section
    # headers, 7 and 8 the modules, 9 OMAP from source, 10 the final section headers
    modinfo = module(7, sym1, b"draw.obj", len(c13a)) + module(8, sym2, b"asm.obj", len(c13b))
    dbg = [0xFFFF] * 11
    if omap:
        dbg[4], dbg[5], dbg[10] = 9, 10, 6
    else:
        dbg[5] = 6
    dbgh = struct.pack("<11H", *dbg)
    dbi = struct.pack("<iIIHHHHHHiiiiiIiiHHI", -1, 19990903, 1, 0xFFFF, 0, 0xFFFF, 0, 5, 0, len(modinfo), 0, 0, 0, 0,
                      0, len(dbgh), 0, 0, 0x14C, 0)
    dbi += modinfo + dbgh
    guid = bytes(range(0x10, 0x20))
    info = struct.pack("<III", 20000404, 0x5A000000, 3) + guid
    # the named stream map: "/names" is stream 11 (a hash table of one: size, capacity, the
    # present and deleted bit vectors, the pair)
    info += struct.pack("<I", 7) + b"/names\0" + struct.pack("<IIIIIII", 1, 1, 1, 1, 0, 0, 11)
    omapdata = struct.pack("<IIII", 0x1000, 0x1000, 0x3000, 0x4000) if omap else b""
    final = section(b".text", 0x1000, 0x200) + section(b".text2", 0x4000, 0x100)
    namestream = struct.pack("<III", 0xEFFEEFFE, 1, len(names)) + names
    streams = [b"", info, b"", dbi, b"", pubs, sects, mod1, mod2, omapdata, final if omap else b"", namestream]
    blocks = [b""] * 3  # 0 superblock, 1 and 2 free block maps
    sizes, lists = [], []
    for s in streams:
        idx = []
        for o in range(0, len(s), BS):
            idx.append(len(blocks))
            blocks.append(s[o:o + BS].ljust(BS, b"\0"))
        sizes.append(len(s))
        lists.append(idx)
    directory = struct.pack("<I", len(streams)) + b"".join(struct.pack("<I", n) for n in sizes)
    directory += b"".join(struct.pack("<%dI" % len(ix), *ix) for ix in lists)
    dir_blocks = []
    for o in range(0, len(directory), BS):
        dir_blocks.append(len(blocks))
        blocks.append(directory[o:o + BS].ljust(BS, b"\0"))
    map_block = len(blocks)
    blocks.append(struct.pack("<%dI" % len(dir_blocks), *dir_blocks).ljust(BS, b"\0"))
    blocks[0] = (MAGIC + struct.pack("<IIIIII", BS, 1, len(blocks), len(directory), 0, map_block)).ljust(BS, b"\0")
    blocks[1] = blocks[2] = b"\xff" * BS
    open(sys.argv[1], "wb").write(b"".join(blocks))


main()
