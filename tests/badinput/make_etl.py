#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Makes the malformed ETL inputs of tests/badinput/ from two small traces of PerfView's test
# inputs (MIT): smallEtlFile.etl (a header buffer + one Xpress-compressed buffer) and
# primitive-types.etl (from primitive-types.etl.zip: uncompressed, 8 KiB buffers). Run once;
# the outputs are committed. Usage: make_etl.py SHARED_DATA_ETL_DIR
import io, struct, sys, zipfile

src = sys.argv[1]
small = open(f"{src}/smallEtlFile.etl", "rb").read()
prim = zipfile.ZipFile(f"{src}/primitive-types.etl.zip").read("primitive-types.etl")


def patch(data, off, fmt, value):
    b = bytearray(data)
    struct.pack_into(fmt, b, off, value)
    return bytes(b)


def write(name, data):
    open(name, "wb").write(data)


write("etl-truncated-header.etl", small[:90])
write("etl-no-trace-header.etl", patch(small, 0x48 + 3, "<B", 0))
write("etl-truncated-buffer.etl", small[:800])
write("etl-corrupt-xpress.etl", small[:512 + 0x48] + b"\xff" * 8 + b"\x00\x00" * 40 + small[512 + 0x48 + 88:])
write("etl-buffer-size-overrun.etl", patch(small, 512, "<I", 0x7FFFFFFF))
write("etl-buffer-too-small.etl", patch(small, 512, "<I", 0x10))
write("etl-old-windows.etl", patch(small, 0x48 + 32 + 4, "<B", 5))
write("etl-pointer-size.etl", patch(small, 0x48 + 32 + 0x2C, "<I", 3))
write("etl-no-clock.etl", patch(small, 0x48 + 32 + 0xF8, "<Q", 0))
write("etl-lznt1.etl", patch(small, 0x2C, "<H", 2))
write("etl-first-buffer-compressed.etl", patch(small, 0x34, "<H", 0x61))
write("etl-event-size-overrun.etl", patch(prim, 8192 + 448, "<H", 0xFFF0))
write("etl-unknown-header-kind.etl", patch(prim, 8192 + 824 + 2, "<B", 0x30))
write("etl-corrupt-event.etl", patch(prim, 8192 + 1200 + 3, "<B", 0x00))
write("etl-fill-overrun.etl", patch(prim, 8192 + 0x30, "<I", 9000))
for name, entries in (("etl-no-etl.etl.zip", ["LogFile.txt", "notes.txt"]),
                      ("etl-two-etl.etl.zip", ["a.etl", "b.etl", "LogFile.txt"])):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for e in entries:
            z.writestr(e, small if e.endswith(".etl") else "log\n")
    write(name, buf.getvalue())

# An Xpress bomb: buffers of a few bytes that each claim to inflate to 64 MiB.
out = 64 << 20
lz = struct.pack("<I", 0x40000000) + b"A" + struct.pack("<HBBH", 0x0007, 0x0F, 0xFF, 0) + struct.pack("<I", out - 1 - 3)
hdr = bytearray(small[512:512 + 0x48])
struct.pack_into("<I", hdr, 0, 0x48 + len(lz))
struct.pack_into("<I", hdr, 0x30, 0x48 + out)
write("etl-xpress-bomb.etl", small[:512] + (bytes(hdr) + lz) * 40)
