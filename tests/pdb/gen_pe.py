#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes a small PE32+ DLL whose export table is known, for `stackview symbols` on images:
# .text at RVA 0x1000, .rdata at RVA 0x2000 with the export directory (exports "alpha" at
# 0x1010, "beta" at 0x1100, "fwd" forwarded to "other.thing", and an export by ordinal only
# at 0x1200) and a debug directory whose CodeView record names "lib.pdb" (GUID 10..1F, age 5).
# TimeDateStamp 0x5AB38077, SizeOfImage 0x3000. usage: gen_pe.py OUT.dll
import struct
import sys

FA = 0x200  # file alignment
text = b"\xc3" * 0x300
# .rdata at RVA 0x2000: export directory, arrays, names, the forwarder, debug directory, RSDS
base = 0x2000
names = [b"alpha", b"beta", b"fwd"]
funcs = [0x1010, 0x1100, 0, 0x1200]  # ordinal 2 (fwd) patched to the forwarder string below
o_dir = 0
o_funcs = 40
o_names = o_funcs + 4 * len(funcs)
o_ords = o_names + 4 * len(names)
o_strs = o_ords + 2 * len(names)
strs = b""
name_rvas = []
for n in names:
    name_rvas.append(base + o_strs + len(strs))
    strs += n + b"\0"
fwd_rva = base + o_strs + len(strs)
strs += b"other.thing\0"
dll_name_rva = base + o_strs + len(strs)
strs += b"lib.dll\0"
funcs[2] = fwd_rva
edata_size = o_strs + len(strs)
exp = struct.pack("<IIHHIIIIIII", 0, 0x5AB38077, 0, 0, dll_name_rva, 1, len(funcs), len(names),
                  base + o_funcs, base + o_names, base + o_ords)
rdata = exp + struct.pack("<%dI" % len(funcs), *funcs) + struct.pack("<%dI" % len(names), *name_rvas)
rdata += struct.pack("<%dH" % len(names), 0, 1, 2) + strs
rdata += b"\0" * (-len(rdata) % 4)
o_rsds = len(rdata) + 28
rsds = b"RSDS" + bytes(range(0x10, 0x20)) + struct.pack("<I", 5) + b"lib.pdb\0"
debug_rva = base + len(rdata)
rdata_file = 0x400  # where .rdata starts in the file
rdata += struct.pack("<IIHHIIII", 0, 0x5AB38077, 0, 0, 2, len(rsds), base + o_rsds, rdata_file + o_rsds) + rsds
rdata = rdata.ljust(0x200, b"\0")

opt = struct.pack("<HBBIIIIIQIIHHHHHHIIIIHHQQQQII", 0x20B, 14, 0, len(text), len(rdata), 0, 0x1000, 0x1000,
                  0x180000000, 0x1000, FA, 6, 0, 0, 0, 6, 0, 0, 0x3000, 0x400, 0, 3, 0x160, 0x100000, 0x1000,
                  0x100000, 0x1000, 0, 16)
dirs = [(0, 0)] * 16
dirs[0] = (base, edata_size)
dirs[6] = (debug_rva, 28)
opt += b"".join(struct.pack("<II", *d) for d in dirs)
sections = struct.pack("<8sIIIIIIHHI", b".text", 0x300, 0x1000, 0x200, 0x200, 0, 0, 0, 0, 0x60000020)
sections += struct.pack("<8sIIIIIIHHI", b".rdata", 0x200, 0x2000, 0x200, 0x400, 0, 0, 0, 0, 0x40000040)
coff = struct.pack("<HHIIIHH", 0x8664, 2, 0x5AB38077, 0, 0, len(opt), 0x2022)
mz = bytearray(0x40)
mz[0:2] = b"MZ"
struct.pack_into("<I", mz, 0x3C, 0x40)
headers = (bytes(mz) + b"PE\0\0" + coff + opt + sections).ljust(0x200, b"\0")
open(sys.argv[1], "wb").write(headers + text[:0x200] + rdata)
