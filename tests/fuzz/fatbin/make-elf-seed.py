#!/usr/bin/env python3
"""Writes seed-rdc.elf: a compact 64-bit ELF holding what an -rdc=true program built by nvcc holds
for its device code (.nv_fatbin, __nv_relfatbin and the .nvFatBinSegment wrappers pointing at
them), taken from the committed fixtures, so fuzz_fatbin starts inside the ELF reader too."""
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))
fixtures = os.path.join(here, '..', '..', 'runtime', 'fatbin')
exe = open(os.path.join(fixtures, 'exe_nv_fatbin.bin'), 'rb').read()
rel = open(os.path.join(fixtures, 'rdc_relfatbin.bin'), 'rb').read()
linked = exe[:0x5f8]  # the device-link container

nv_fatbin_addr, relfatbin_addr, segment_addr = 0x2000, 0x3000, 0x5000
wrapper = lambda version, data: struct.pack('<IIQQ', 0x466243b1, version, data, 0)
segment = (wrapper(2, nv_fatbin_addr) + wrapper(1, relfatbin_addr) +
           wrapper(1, relfatbin_addr + 0x5d0))
sections = [('.nv_fatbin', nv_fatbin_addr, linked), ('__nv_relfatbin', relfatbin_addr, rel),
            ('.nvFatBinSegment', segment_addr, segment)]

names = b'\0' + b''.join(n.encode() + b'\0' for n, _, _ in sections) + b'.shstrtab\0'
out = bytearray(64)
offsets = []
for _, _, data in sections + [('.shstrtab', 0, names)]:
    out += b'\0' * (-len(out) % 8)
    offsets.append(len(out))
    out += data
out += b'\0' * (-len(out) % 8)
table = len(out)
out += b'\0' * 64  # the null section
name_offset = 1
for i, (name, addr, data) in enumerate(sections):
    out += struct.pack('<IIQQQQIIQQ', name_offset, 1, 0x2, addr, offsets[i], len(data), 0, 0, 8, 0)
    name_offset += len(name) + 1
out += struct.pack('<IIQQQQIIQQ', name_offset, 3, 0, 0, offsets[-1], len(names), 0, 0, 1, 0)
count = len(sections) + 2
struct.pack_into('<4sBBBB8xHHIQQQIHHHHHH', out, 0, b'\x7fELF', 2, 1, 1, 0, 2, 0x3e, 1, 0, 0, table,
                 0, 64, 0, 0, 64, count, count - 1)
open(os.path.join(here, 'seed-rdc.elf'), 'wb').write(out)
