"""Writes a kernel `big` with N divergent if-blocks in a row (about 2N+2 CFG blocks) to stdout:
a CFG too large for Graphviz to lay out quickly (tests/lit/analyze/html-large.test)."""
import sys

n = int(sys.argv[1])
print(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry big()\n{")
print("  .reg .pred %p<2>;\n  .reg .b32 %r<4>;\n  mov.u32 %r0, %tid.x;\n  mov.u32 %r1, 0;")
for i in range(n):
    print("  setp.lt.u32 %p0, %r0, {};\n  @%p0 bra L{};\n  add.u32 %r1, %r1, 1;\nL{}:".format(i % 64, i, i))
print("  ret;\n}")
