#!/usr/bin/env python3
"""Writes the tensor-core probe kernels and their GPU-truth cases.

Every kernel runs one warp and moves fragments as raw registers: register i of
lane l is word l*N+i of its buffer, so the recorded outputs pin down both the
fragment layouts and the arithmetic (alignment, rounding, saturation) of each
instruction form, independently of any layout the kernel could assume.

  kernels/ptx/tensor_raw.ptx, tensor_raw_sm90.ptx   the kernels (hand-written PTX, generated)
  tests/gpu/ptx/tensor_raw*.handwritten.ptx         copies the GPU-truth cases run
  tests/gpu/cases/tr_*.case                          the cases

Run from the repository root: scripts/gen-tensor-raw.py
"""
import os
import random

# ---- mma.sync: name, instruction, (A regs, B regs, C regs), register type of A/B and C/D
# register types: b32 (packed f16/bf16/ints, tf32 bits), f32, f64, s32 (b32 regs)
MMA = [
    ("f16f32_k16", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", (4, 2, 4), "b32", "f32"),
    ("f16f16_k16", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", (4, 2, 2), "b32", "b32"),
    ("f16f32_k8", "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", (2, 1, 4), "b32", "f32"),
    ("f16f16_k8", "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16", (2, 1, 2), "b32", "b32"),
    ("bf16_k16", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", (4, 2, 4), "b32", "f32"),
    ("bf16_k8", "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", (2, 1, 4), "b32", "f32"),
    ("tf32_k8", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", (4, 2, 4), "b32", "f32"),
    ("tf32_k4", "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", (2, 1, 4), "b32", "f32"),
    ("f64_m8n8k4", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", (1, 1, 2), "f64", "f64"),
    ("s8_k32", "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", (4, 2, 4), "b32", "b32"),
    ("s8_k32_sat", "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32", (4, 2, 4), "b32", "b32"),
    ("u8s8_k32", "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32", (4, 2, 4), "b32", "b32"),
    ("s8_k16", "mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32", (2, 1, 4), "b32", "b32"),
    ("s8u8_m8n8k16", "mma.sync.aligned.m8n8k16.row.col.s32.s8.u8.s32", (1, 1, 2), "b32", "b32"),
    ("s4_k64", "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32", (4, 2, 4), "b32", "b32"),
    ("u4_k32_sat", "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u4.u4.s32", (2, 1, 4), "b32", "b32"),
    ("s4_m8n8k32", "mma.sync.aligned.m8n8k32.row.col.s32.s4.u4.s32", (1, 1, 2), "b32", "b32"),
    ("b1_k256_xor", "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc", (4, 2, 4), "b32", "b32"),
    ("b1_k128_and", "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc", (2, 1, 4), "b32", "b32"),
    ("b1_m8n8k128", "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc", (1, 1, 2), "b32", "b32"),
]
MMA_SM90 = [
    ("f64_k4", "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64", (2, 1, 4), "f64", "f64"),
    ("f64_k8", "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64", (4, 2, 4), "f64", "f64"),
    ("f64_k16", "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64", (8, 4, 4), "f64", "f64"),
    ("e4m3_k32", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", (4, 2, 4), "b32", "f32"),
    ("e5m2e4m3_k32", "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32", (4, 2, 4), "b32", "f32"),
]

# ---- wmma.load fragment dumps: (type, shape, a regs, b regs, rows/cols of A and B)
WMMA_AB = [
    ("f16", "m16n16k16", 8, 8), ("f16", "m32n8k16", 8, 8), ("f16", "m8n32k16", 8, 8),
    ("bf16", "m16n16k16", 4, 4), ("bf16", "m32n8k16", 8, 2), ("bf16", "m8n32k16", 2, 8),
    ("s8", "m16n16k16", 2, 2), ("s8", "m32n8k16", 4, 1), ("s8", "m8n32k16", 1, 4),
    ("tf32", "m16n16k8", 4, 4), ("f64", "m8n8k4", 1, 1), ("s4", "m8n8k32", 1, 1), ("b1", "m8n8k128", 1, 1),
]
WMMA_C = [
    ("f16", "m16n16k16", 4), ("f16", "m32n8k16", 4), ("f16", "m8n32k16", 4),
    ("f32", "m16n16k16", 8), ("f32", "m32n8k16", 8), ("f32", "m8n32k16", 8), ("f32", "m16n16k8", 8),
    ("s32", "m16n16k16", 8), ("s32", "m32n8k16", 8), ("s32", "m8n32k16", 8),
    ("f64", "m8n8k4", 2), ("s32", "m8n8k32", 2), ("s32", "m8n8k128", 2),
]
ELEM_BITS = {"f16": 16, "bf16": 16, "s8": 8, "tf32": 32, "f64": 64, "s4": 4, "b1": 1, "f32": 32, "s32": 32}


def shape(s):
    m, rest = s[1:].split("n")
    n, k = rest.split("k")
    return int(m), int(n), int(k)


class Kernel:
    def __init__(self, name, params):
        self.name, self.params, self.body = name, params, []
        self.regs = {"b32": 0, "f32": 0, "f64": 0, "b64": 0}
        self.shared = 0  # bytes of a .shared array named NAME_s, declared first
        self.preds = 0
        self.align = 16

    def reg(self, t):
        self.regs[t] += 1
        prefix = {"b32": "%r", "f32": "%f", "f64": "%fd", "b64": "%rd"}[t]
        return f"{prefix}{self.regs[t]}"

    def emit(self, line):
        self.body.append("\t" + line)

    def text(self):
        params = ",\n".join(f"\t.param .u64 {self.name}_{p}" for p in self.params)
        decls = "".join(f"\t.reg .{t} {dict(b32='%r', f32='%f', f64='%fd', b64='%rd')[t]}<{n + 1}>;\n"
                        for t, n in self.regs.items() if n)
        if self.preds:
            decls += f"\t.reg .pred %p<{self.preds + 1}>;\n"
        if self.shared:
            decls += f"\t.shared .align {self.align} .b8 {self.name}_s[{self.shared}];\n"
        return f".visible .entry {self.name}(\n{params}\n)\n{{\n{decls}" + "\n".join(self.body) + "\n\tret;\n}\n"


def lane_base(k, param, words, size):
    """A global pointer to the lane's first word of `param` (words per lane, bytes per word)."""
    p, base, off, lane = k.reg("b64"), k.reg("b64"), k.reg("b64"), k.reg("b32")
    k.emit(f"ld.param.u64 {p}, [{k.name}_{param}];")
    k.emit(f"cvta.to.global.u64 {base}, {p};")
    k.emit(f"mov.u32 {lane}, %laneid;")
    k.emit(f"mul.wide.u32 {off}, {lane}, {words * size};")
    k.emit(f"add.s64 {base}, {base}, {off};")
    return base


def load_regs(k, param, n, rt):
    size = 8 if rt == "f64" else 4
    base = lane_base(k, param, n, size)
    regs = [k.reg(rt) for _ in range(n)]
    for i, r in enumerate(regs):
        k.emit(f"ld.global.{'f64' if rt == 'f64' else 'b32' if rt == 'b32' else 'f32'} {r}, [{base}+{i * size}];")
    return regs


def store_regs(k, param, regs, rt):
    size = 8 if rt == "f64" else 4
    base = lane_base(k, param, len(regs), size)
    for i, r in enumerate(regs):
        k.emit(f"st.global.{'f64' if rt == 'f64' else 'b32' if rt == 'b32' else 'f32'} [{base}+{i * size}], {r};")


def mma_kernel(name, instr, counts, abt, cdt):
    k = Kernel("mma_" + name, ["a", "b", "c", "d"])
    a = load_regs(k, "a", counts[0], abt)
    b = load_regs(k, "b", counts[1], abt)
    c = load_regs(k, "c", counts[2], cdt)
    d = [k.reg(cdt) for _ in c]
    vec = lambda rs: "{" + ", ".join(rs) + "}"
    k.emit(f"{instr} {vec(d)}, {vec(a)}, {vec(b)}, {vec(c)};")
    store_regs(k, "d", d, cdt)
    return k


def shared_matrix_kernel(k, param, bytes_):
    """Copies `bytes_` bytes of global `param` into a shared array (each lane 16-byte pieces); returns its address reg."""
    k.shared = bytes_
    p, g = k.reg("b64"), k.reg("b64")
    k.emit(f"ld.param.u64 {p}, [{k.name}_{param}];")
    k.emit(f"cvta.to.global.u64 {g}, {p};")
    lane, s = k.reg("b32"), k.reg("b32")
    k.emit(f"mov.u32 {lane}, %laneid;")
    k.emit(f"mov.u32 {s}, {k.name}_s;")
    for chunk in range(0, bytes_, 512):
        off, ga, sa = k.reg("b32"), k.reg("b64"), k.reg("b32")
        k.emit(f"mad.lo.u32 {off}, {lane}, 16, {chunk};")
        k.emit(f"cvt.u64.u32 {ga}, {off};")
        k.emit(f"add.s64 {ga}, {g}, {ga};")
        k.emit(f"add.u32 {sa}, {s}, {off};")
        v = [k.reg("b32") for _ in range(4)]
        k.emit(f"ld.global.v4.b32 {{{', '.join(v)}}}, [{ga}];")
        k.emit(f"st.shared.v4.b32 [{sa}], {{{', '.join(v)}}};")
    k.emit("bar.warp.sync -1;")
    return s, lane


def ldmatrix_kernel(n, trans):
    k = Kernel(f"ldmatrix_x{n}{'_trans' if trans else ''}", ["a", "d"])
    s, lane = shared_matrix_kernel(k, "a", 512)
    # lane l gives row (5*l + 3) mod 32 of the 32 rows of 8 halves: a permutation, so that the
    # dump shows which lane's address feeds which row
    row, addr = k.reg("b32"), k.reg("b32")
    k.emit(f"mad.lo.u32 {row}, {lane}, 5, 3;")
    k.emit(f"and.b32 {row}, {row}, 31;")
    k.emit(f"mad.lo.u32 {addr}, {row}, 16, {s};")
    d = [k.reg("b32") for _ in range(n)]
    k.emit(f"ldmatrix.sync.aligned.m8n8.x{n}{'.trans' if trans else ''}.shared.b16 {{{', '.join(d)}}}, [{addr}];")
    store_regs(k, "d", d, "b32")
    return k


def stmatrix_kernel(n, trans):
    k = Kernel(f"stmatrix_x{n}{'_trans' if trans else ''}", ["a", "d"])
    a = load_regs(k, "a", n, "b32")
    k.shared = 512
    lane, s, row, addr = k.reg("b32"), k.reg("b32"), k.reg("b32"), k.reg("b32")
    k.emit(f"mov.u32 {lane}, %laneid;")
    k.emit(f"mov.u32 {s}, {k.name}_s;")
    k.emit(f"mad.lo.u32 {row}, {lane}, 5, 3;")
    k.emit(f"and.b32 {row}, {row}, 31;")
    k.emit(f"mad.lo.u32 {addr}, {row}, 16, {s};")
    zero = k.reg("b32")
    k.emit(f"mov.u32 {zero}, 0;")
    for w in range(4):  # clear the lane's 16 bytes first: unwritten rows read as 0
        k.emit(f"st.shared.b32 [{addr}+{w * 4}], {zero};")
    k.emit("bar.warp.sync -1;")
    k.emit(f"stmatrix.sync.aligned.m8n8.x{n}{'.trans' if trans else ''}.shared.b16 [{addr}], {{{', '.join(a)}}};")
    k.emit("bar.warp.sync -1;")
    p, g, off = k.reg("b64"), k.reg("b64"), k.reg("b64")
    k.emit(f"ld.param.u64 {p}, [{k.name}_d];")
    k.emit(f"cvta.to.global.u64 {g}, {p};")
    k.emit(f"mul.wide.u32 {off}, {lane}, 16;")
    k.emit(f"add.s64 {g}, {g}, {off};")
    sa = k.reg("b32")
    k.emit(f"mad.lo.u32 {sa}, {lane}, 16, {s};")
    v = [k.reg("b32") for _ in range(4)]
    k.emit(f"ld.shared.v4.b32 {{{', '.join(v)}}}, [{sa}];")
    k.emit(f"st.global.v4.b32 [{g}], {{{', '.join(v)}}};")
    return k


def movmatrix_kernel():
    k = Kernel("movmatrix_trans", ["a", "d"])
    a = load_regs(k, "a", 1, "b32")
    d = k.reg("b32")
    k.emit(f"movmatrix.sync.aligned.m8n8.trans.b16 {d}, {a[0]};")
    store_regs(k, "d", [d], "b32")
    return k


def wmma_rt(t):
    return "f64" if t == "f64" else "b32" if t not in ("f32",) else "f32"


def wmma_ab_kernel(t, shp, na, nb):
    m, n, kk = shape(shp)
    k = Kernel(f"wmma_ld_{t}_{shp}", ["a", "d"])
    p, g = k.reg("b64"), k.reg("b64")
    k.emit(f"ld.param.u64 {p}, [{k.name}_a];")
    k.emit(f"cvta.to.global.u64 {g}, {p};")
    rt = "f64" if t == "f64" else "b32"
    out = []
    # sub-byte types: the stride counts elements; A is row-major only, B col-major only
    forms = [("a", "row", kk, na), ("a", "col", m, na), ("b", "row", n, nb), ("b", "col", kk, nb)]
    if t in ("s4", "b1"):
        forms = [("a", "row", kk, na), ("b", "col", kk, nb)]
    for mat, layout, stride, cnt in forms:
        regs = [k.reg(rt) for _ in range(cnt)]
        suffix = ".f16" if t == "f16" else "." + t
        k.emit(f"wmma.load.{mat}.sync.aligned.{layout}.{shp}.global{suffix} {{{', '.join(regs)}}}, [{g}], {stride};")
        out += regs
    store_regs(k, "d", out, rt)
    return k, len(out)


def wmma_c_kernel(t, shp, nc):
    m, n, _ = shape(shp)
    k = Kernel(f"wmma_ldc_{t}_{shp}", ["a", "d"])
    p, g = k.reg("b64"), k.reg("b64")
    k.emit(f"ld.param.u64 {p}, [{k.name}_a];")
    k.emit(f"cvta.to.global.u64 {g}, {p};")
    rt = {"f16": "b32", "f32": "f32", "s32": "b32", "f64": "f64"}[t]
    out = []
    for layout, stride in (("row", n), ("col", m)):
        regs = [k.reg(rt) for _ in range(nc)]
        k.emit(f"wmma.load.c.sync.aligned.{layout}.{shp}.global.{t} {{{', '.join(regs)}}}, [{g}], {stride};")
        out += regs
    store_regs(k, "d", out, rt)
    return k, len(out)


# ---- wgmma (sm_90a): one warpgroup; 16 KiB of shared memory filled from buffer `s`; descriptors
# from scalars whose address field holds a byte offset into that memory (the kernel adds the
# shared base); A from raw registers (word tid*4+i of `a`) or a descriptor; D loaded from `d`,
# accumulated into when `scaled` != 0, and stored back.
WGMMA = [
    # name, instruction prefix (before operands), A from registers?, D regs per thread, D reg type, trans imms?, scale imms?
    ("f16_n32", "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16", 16, "f32", True, True),
    ("f16f16_n32", "wgmma.mma_async.sync.aligned.m64n32k16.f16.f16.f16", 8, "b32", True, True),
    ("bf16_n32", "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16", 16, "f32", True, True),
    ("tf32_n32", "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32", 16, "f32", False, True),
    ("e4m3_n32", "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3", 16, "f32", False, True),
    ("e5m2_n32", "wgmma.mma_async.sync.aligned.m64n32k32.f32.e5m2.e5m2", 16, "f32", False, True),
    ("s8_n32", "wgmma.mma_async.sync.aligned.m64n32k32.s32.s8.s8", 16, "b32", False, False),
    ("u8s8_n32", "wgmma.mma_async.sync.aligned.m64n32k32.s32.u8.s8", 16, "b32", False, False),
    ("f16_n256", "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", 128, "f32", True, True),
]


def wgmma_kernel(name, instr, nd, dt, trans, scale, a_regs, trans_a, trans_b):
    k = Kernel(f"wgmma_{name}_{'r' if a_regs else 'd'}{'' if not trans else f'_t{trans_a}{trans_b}'}",
               ["a", "src", "d", "desca", "descb", "scaled"])
    k.shared, k.align = 16384, 1024
    tid, s = k.reg("b32"), k.reg("b32")
    k.emit(f"mov.u32 {tid}, %tid.x;")
    k.emit(f"mov.u32 {s}, {k.name}_s;")
    p, g = k.reg("b64"), k.reg("b64")
    k.emit(f"ld.param.u64 {p}, [{k.name}_src];")
    k.emit(f"cvta.to.global.u64 {g}, {p};")
    for chunk in range(8):
        off, ga, sa = k.reg("b32"), k.reg("b64"), k.reg("b32")
        k.emit(f"mad.lo.u32 {off}, {tid}, 16, {chunk * 2048};")
        k.emit(f"cvt.u64.u32 {ga}, {off};")
        k.emit(f"add.s64 {ga}, {g}, {ga};")
        k.emit(f"add.u32 {sa}, {s}, {off};")
        v = [k.reg("b32") for _ in range(4)]
        k.emit(f"ld.global.v4.b32 {{{', '.join(v)}}}, [{ga}];")
        k.emit(f"st.shared.v4.b32 [{sa}], {{{', '.join(v)}}};")
    k.emit("bar.sync 0;")
    k.emit("fence.proxy.async.shared::cta;")

    def thread_base(param, words, size):
        q, base, off = k.reg("b64"), k.reg("b64"), k.reg("b64")
        k.emit(f"ld.param.u64 {q}, [{k.name}_{param}];")
        k.emit(f"cvta.to.global.u64 {base}, {q};")
        k.emit(f"mul.wide.u32 {off}, {tid}, {words * size};")
        k.emit(f"add.s64 {base}, {base}, {off};")
        return base

    sb = k.reg("b64")
    k.emit(f"cvt.u64.u32 {sb}, {s};")
    k.emit(f"shr.u64 {sb}, {sb}, 4;")
    descs = {}
    for which in ("desca", "descb"):
        dr = k.reg("b64")
        k.emit(f"ld.param.u64 {dr}, [{k.name}_{which}];")
        k.emit(f"add.s64 {dr}, {dr}, {sb};")
        descs[which] = dr
    if a_regs:
        base = thread_base("a", 4, 4)
        a = [k.reg("b32") for _ in range(4)]
        for i, r in enumerate(a):
            k.emit(f"ld.global.b32 {r}, [{base}+{i * 4}];")
        a_op = "{" + ", ".join(a) + "}"
    else:
        a_op = descs["desca"]
    base = thread_base("d", nd, 4)
    d = [k.reg(dt) for _ in range(nd)]
    op = "f32" if dt == "f32" else "b32"
    for i, r in enumerate(d):
        k.emit(f"ld.global.{op} {r}, [{base}+{i * 4}];")
    sc, pr = k.reg("b32"), "%p1"
    k.emit(f"ld.param.u32 {sc}, [{k.name}_scaled];")
    k.emit(f"setp.ne.u32 {pr}, {sc}, 0;")
    imms = []
    if scale:
        imms += ["1", "1"]
    if trans:
        imms += ([str(trans_a)] if not a_regs else []) + [str(trans_b)]
    k.emit("wgmma.fence.sync.aligned;")
    k.emit(f"{instr} {{{', '.join(d)}}}, {a_op}, {descs['descb']}, {pr}{''.join(', ' + i for i in imms)};")
    k.emit("wgmma.commit_group.sync.aligned;")
    k.emit("wgmma.wait_group.sync.aligned 0;")
    for i, r in enumerate(d):
        k.emit(f"st.global.{op} [{base}+{i * 4}], {r};")
    k.preds = 1
    return k


def desc(offset, lbo, sbo, swizzle):
    """A descriptor template: address field = byte offset into the kernel's shared memory."""
    mode = {0: 0, 128: 1, 64: 2, 32: 3}[swizzle]
    return (offset >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | mode << 62


def header(target, version):
    return (f"// ptxas-arch: {target}\n"
            "// Generated by scripts/gen-tensor-raw.py: tensor-core probe kernels (one warp each) that move\n"
            "// fragments as raw registers, register i of lane l at word l*N+i. Do not edit by hand.\n"
            f".version {version}\n.target {target}\n.address_size 64\n\n")


def buffer_words(rt):
    return 8 if rt == "f64" else 4


CASES = {}


def case(name, ptx, kernel, bufs, notes=()):
    lines = [f"# {name}: {kernel} from {ptx} (generated by scripts/gen-tensor-raw.py)"]
    lines += [f"note {n}" for n in notes]
    lines += [f"ptx {ptx}", f"kernel {kernel}", "grid 1", "block 32", "shared 0", "expect completed"]
    lines += [f"buffer {b}" for b in bufs]
    CASES[name] = "\n".join(lines) + "\n"


def float_cases(fname, ptx, counts, elem, cdt, seed):
    na, nb, nc = counts
    per = 2 if elem in ("f16", "bf16") else 1
    ctype = "f64" if cdt == "f64" else ("f32" if cdt == "f32" else "f16")
    cper = 2 if ctype == "f16" else 1
    kern = "mma_" + fname
    wide = elem in ("bf16", "f32", "f64")
    lo, hi = (-30, 30) if wide else (-7, 7)
    clo, chi = (-30, 40) if wide else (-6, 12)
    bufs = lambda ia, ib, ic: [f"a {elem} {32 * na * per} {ia}", f"b {elem} {32 * nb * per} {ib}",
                               f"c {ctype} {32 * nc * cper} {ic}", f"d {ctype} {32 * nc * cper} zeros dump"]
    case(f"tr_mma_{fname}_log", ptx, kern,
         bufs(f"lograndom {seed} {lo} {hi}", f"lograndom {seed + 1} {lo} {hi}", f"lograndom {seed + 2} {clo} {chi}"),
         ["magnitudes spread over many binades: the sums show how the tensor core aligns, adds and rounds"])
    case(f"tr_mma_{fname}_unit", ptx, kern,
         bufs(f"random {seed + 3} -1 1", f"random {seed + 4} -1 1", f"random {seed + 5} -1 1"),
         ["uniform in [-1, 1]: typical inputs, results rounded in the last place"])
    specials = "inf -inf nan 0 -0 1 -1 0x1p-24 65504 -65504 0x1p-14 3 0.5 -2 inf 1"
    if elem in ("f16", "bf16", "f32", "f64"):
        case(f"tr_mma_{fname}_special", ptx, kern,
             bufs(f"values {specials} then lograndom {seed + 6} {lo} {hi}",
                  f"values 1 1 1 1 inf 2 0 -inf 1 1 1 1 1 1 1 1 then lograndom {seed + 7} {lo} {hi}",
                  f"values nan 1 inf -inf 0 -0 1 1 then lograndom {seed + 8} {clo} {chi}"),
             ["infinities, NaN, signed zeros and subnormals among ordinary values"])


def int_cases(fname, ptx, counts, seed):
    na, nb, nc = counts
    kern = "mma_" + fname
    bufs = lambda ic: [f"a u32 {32 * na} random {seed}", f"b u32 {32 * nb} random {seed + 1}",
                       f"c s32 {32 * nc} {ic}", f"d s32 {32 * nc} zeros dump"]
    case(f"tr_mma_{fname}", ptx, kern, bufs(f"randint {seed + 2} -100000 100000"), ["random bits"])
    if "sat" in fname:
        case(f"tr_mma_{fname}_edge", ptx, kern,
             bufs(f"values 2147483647 -2147483648 2147483600 -2147483600 then randint {seed + 3} -2147483648 2147483647"),
             ["accumulators at the ends of the s32 range: .satfinite clamps, the plain form wraps"])


def one_hot_a():
    """A registers (m16n8k16 f16 fragment per warp) holding A[m][k] = (k == m mod 16)."""
    vals = []
    for tid in range(128):
        g, t = (tid % 32) // 4, tid % 4
        for e in range(8):
            row = g + 8 * ((e >> 1) & 1)
            col = 2 * t + (e & 1) + 8 * (e >> 2)
            vals.append("1" if col == row else "0")
    return "values " + " ".join(vals)


def one_hot_a8(one):
    """8-bit A registers (m16n8k32 fragment per warp) holding A[m][k] = (k == m mod 32)."""
    vals = []
    for tid in range(128):
        w, g, t = tid // 32, (tid % 32) // 4, tid % 4
        for e in range(16):
            row = g + 8 * ((e >> 2) & 1)
            col = 4 * t + (e & 3) + 16 * (e >> 3)
            vals.append(str(one) if col == row + 16 * (w % 2) else "0")
    return "values " + " ".join(vals)


def wgmma_cases():
    ptx = "tests/gpu/ptx/tensor_raw_sm90a.handwritten.ptx"
    kernels = {}

    def kernel(name, a_regs, ta=0, tb=0):
        spec = next(w for w in WGMMA if w[0] == name)
        k = wgmma_kernel(name, spec[1], spec[2], spec[3], spec[4], spec[5], a_regs, ta, tb)
        kernels.setdefault(k.name, k)
        return k.name, spec

    def wcase(cname, kname, spec, a_init, s_init, da, db, scaled, notes):
        nd = spec[2]
        dtype = "s32" if spec[3] == "b32" and "s8" in spec[0] else ("f32" if spec[3] == "f32" else "f16")
        dcount = 128 * nd * (2 if dtype == "f16" else 1)
        dinit = {"f32": "lograndom 8100 -4 8", "s32": "randint 8101 -100000 100000",
                 "f16": "lograndom 8102 -2 4"}[dtype] if scaled else "zeros"
        case(cname, ptx, kname, [f"a {a_init}", f"src {s_init}", f"d {dtype} {dcount} {dinit} dump"], notes)
        CASES[cname] = CASES[cname].replace("block 32", "block 128")
        CASES[cname] += f"scalar desca u64 {da:#x}\nscalar descb u64 {db:#x}\nscalar scaled u32 {scaled}\n"

    iota = "f16 8192 iota -4096 1"  # shared byte 8192 + 2i holds the f16 value i (exact to 2048)
    probe = ["A = one-hot (A[m][k] = 1 when k = m mod 16), so D[m][n] = B[m mod 16][n]: the dump shows which "
             "shared element the descriptor's layout puts at each (k, n)"]
    # K-major B (imm-trans-b 0) and MN-major B (1): no swizzle with two LBO/SBO choices, then each swizzle
    layouts = [("t0_none_l128_s256", 0, desc(8192, 128, 256, 0)), ("t0_none_l512_s128", 0, desc(8192, 512, 128, 0)),
               ("t0_sw128", 0, desc(8192, 16, 1024, 128)), ("t0_sw128_k1", 0, desc(8192 + 32, 16, 1024, 128)),
               ("t0_sw64", 0, desc(8192, 16, 512, 64)), ("t0_sw32", 0, desc(8192, 16, 256, 32)),
               ("t1_none_l128_s256", 1, desc(8192, 128, 256, 0)), ("t1_none_l256_s128", 1, desc(8192, 256, 128, 0)),
               ("t1_sw128_l1024_s2048", 1, desc(8192, 1024, 2048, 128)),
               ("t1_sw128_l2048_s1024", 1, desc(8192, 2048, 1024, 128)),
               ("t1_sw64_l512_s1024", 1, desc(8192, 512, 1024, 64)), ("t1_sw32_l256_s512", 1, desc(8192, 256, 512, 32))]
    for lname, tb, db in layouts:
        kname, spec = kernel("f16_n32", True, 0, tb)
        wcase(f"tr_wgmma_layout_b_{lname}", kname, spec, "f16 1024 " + one_hot_a(), iota, 0, db, 0, probe)
    # arithmetic and the A descriptor, on random data
    rnd = ["random inputs; D accumulates into random values: layouts, the A descriptor and the arithmetic together"]
    f16s = "f16 8192 lograndom 8200 -6 6"
    runs = [("f16_n32", True, 0, 0, "f16 1024 lograndom 8201 -6 6", f16s, desc(0, 128, 256, 0), desc(8192, 128, 256, 0)),
            ("f16_n32", False, 0, 0, "f16 1024 zeros", f16s, desc(0, 16, 1024, 128), desc(8192, 16, 1024, 128)),
            ("f16_n32", False, 1, 1, "f16 1024 zeros", f16s, desc(0, 128, 256, 0), desc(8192, 128, 256, 0)),
            ("f16_n32", False, 0, 1, "f16 1024 zeros", f16s, desc(0, 16, 512, 64), desc(8192, 1024, 2048, 128)),
            ("f16f16_n32", True, 0, 0, "f16 1024 lograndom 8202 -3 3", "f16 8192 lograndom 8203 -3 3",
             desc(0, 128, 256, 0), desc(8192, 128, 256, 0)),
            ("bf16_n32", False, 0, 0, "bf16 1024 zeros", "bf16 8192 lograndom 8204 -20 20",
             desc(0, 16, 1024, 128), desc(8192, 16, 1024, 128)),
            ("bf16_n32", True, 0, 1, "bf16 1024 lograndom 8205 -20 20", "bf16 8192 lograndom 8206 -20 20",
             desc(0, 128, 256, 0), desc(8192, 128, 256, 0)),
            ("tf32_n32", True, 0, 0, "f32 512 lograndom 8207 -20 20", "f32 4096 lograndom 8208 -20 20",
             desc(0, 128, 256, 0), desc(8192, 128, 256, 0)),
            ("tf32_n32", False, 0, 0, "f32 512 zeros", "f32 4096 lograndom 8209 -20 20",
             desc(0, 16, 1024, 128), desc(8192, 16, 1024, 128)),
            ("e4m3_n32", True, 0, 0, "u32 512 random 8210", "u32 4096 random 8211",
             desc(0, 128, 256, 0), desc(8192, 128, 256, 0)),
            ("e5m2_n32", False, 0, 0, "u32 512 zeros", "u32 4096 random 8212",
             desc(0, 16, 1024, 128), desc(8192, 16, 1024, 128)),
            ("s8_n32", True, 0, 0, "u32 512 random 8213", "u32 4096 random 8214",
             desc(0, 128, 256, 0), desc(8192, 128, 256, 0)),
            ("u8s8_n32", False, 0, 0, "u32 512 zeros", "u32 4096 random 8215",
             desc(0, 16, 512, 64), desc(8192, 16, 256, 32)),
            ("f16_n256", True, 0, 0, "f16 1024 lograndom 8216 -6 6", f16s,
             desc(0, 128, 256, 0), desc(8192, 128, 256, 0))]
    runs += [("e4m3_n32", True, 0, 0, "e4m3 2048 lograndom 8217 -4 4", "e4m3 16384 lograndom 8218 -4 4",
              desc(0, 128, 256, 0), desc(8192, 128, 256, 0)),
             ("e4m3_n32", False, 0, 0, "u32 512 zeros", "e4m3 16384 lograndom 8219 -6 6",
              desc(0, 16, 1024, 128), desc(8192, 16, 1024, 128)),
             ("e5m2_n32", True, 0, 0, "e5m2 2048 lograndom 8220 -8 8", "e5m2 16384 lograndom 8221 -8 8",
              desc(0, 128, 256, 0), desc(8192, 128, 256, 0)),
             ("e5m2_n32", False, 0, 0, "u32 512 zeros", "e5m2 16384 lograndom 8222 -12 12",
              desc(0, 16, 512, 64), desc(8192, 16, 256, 32))]
    for i, (name, a_regs, ta, tb, a_init, s_init, da, db) in enumerate(runs):
        kname, spec = kernel(name, a_regs, ta, tb)
        wcase(f"tr_{kname}_{i}", kname, spec, a_init, s_init, da, db, 1, rnd)
    # every fp8 code: A one-hot, so D[m][n] = B[m mod 32][n], and B's bytes count through 0..255
    for name, one in (("e4m3_n32", 0x38), ("e5m2_n32", 0x3C)):
        kname, spec = kernel(name, True)
        wcase(f"tr_wgmma_codes_{name}", kname, spec, "u8 2048 " + one_hot_a8(one), "u8 16384 iota 0 1", 0,
              desc(8192, 128, 256, 0), 0, ["A = one-hot (1.0 where k = m mod 32): D shows the value the tensor "
                                           "core gives each of the 256 byte codes"])
    return list(kernels.values())


def main():
    os.makedirs("kernels/ptx", exist_ok=True)
    k80, k90 = [], []
    seed = 5000
    p80, p90 = "tests/gpu/ptx/tensor_raw.handwritten.ptx", "tests/gpu/ptx/tensor_raw_sm90.handwritten.ptx"
    for fname, instr, counts, abt, cdt in MMA:
        k80.append(mma_kernel(fname, instr, counts, abt, cdt))
        elem = {"f16f32_k16": "f16", "f16f16_k16": "f16", "f16f32_k8": "f16", "f16f16_k8": "f16",
                "bf16_k16": "bf16", "bf16_k8": "bf16", "tf32_k8": "f32", "tf32_k4": "f32",
                "f64_m8n8k4": "f64"}.get(fname)
        if elem:
            float_cases(fname, p80, counts, elem, cdt, seed)
        else:
            int_cases(fname, p80, counts, seed)
        seed += 10
    for fname, instr, counts, abt, cdt in MMA_SM90:
        k90.append(mma_kernel(fname, instr, counts, abt, cdt))
        if fname.startswith("f64"):
            float_cases(fname, p90, counts, "f64", cdt, seed)
            seed += 10
        else:  # fp8: four elements per register (seeds apart, so that later cases keep theirs)
            fp8_seed = 9000 + 10 * len(k90)
            na, nb, nc = counts
            ta, tb = ("e5m2", "e4m3") if fname.startswith("e5m2") else ("e4m3", "e4m3")
            case(f"tr_mma_{fname}_log", p90, "mma_" + fname,
                 [f"a {ta} {128 * na} lograndom {fp8_seed} -5 5", f"b {tb} {128 * nb} lograndom {fp8_seed + 1} -5 5",
                  f"c f32 {32 * nc} lograndom {fp8_seed + 2} -4 10", f"d f32 {32 * nc} zeros dump"],
                 ["fp8 inputs over many binades: mma.sync's fp8 alignment and rounding",
                  "matched within a bound: c plus the 32 products rounded to nearest f32 gives 249 of these 256 "
                  "results exactly, six one ulp off and one 8 ulps (tests/gpu/README.md)"])
            CASES[f"tr_mma_{fname}_log"] += "compare ulp 8\n"
    for n in (1, 2, 4):
        for trans in (False, True):
            k = ldmatrix_kernel(n, trans)
            k80.append(k)
            case("tr_" + k.name, p80, k.name, ["a u16 256 iota 0 1", f"d u32 {32 * n} zeros dump"],
                 ["the 32 rows of 8 halves hold 0..255: the dump names the element behind every register half"])
            k = stmatrix_kernel(n, trans)
            k90.append(k)
            case("tr_" + k.name, p90, k.name, [f"a u32 {32 * n} iota 0x10000 0x20002", "d u16 256 zeros dump"],
                 ["register i of lane l holds the halves 2(l*N+i) and 2(l*N+i)+1: the dump shows where each went"])
    k = movmatrix_kernel()
    k80.append(k)
    case("tr_movmatrix_trans", p80, k.name, ["a u32 32 iota 0x10000 0x20002", "d u32 32 zeros dump"],
         ["lane l holds halves 2l and 2l+1 of the 8x8 matrix"])
    for t, shp, na, nb in WMMA_AB:
        k, words = wmma_ab_kernel(t, shp, na, nb)
        k80.append(k)
        m, n, kk = shape(shp)
        elems = max(m * kk, kk * n)
        ebits = ELEM_BITS[t]
        if ebits >= 8:
            ty = {8: "u8", 16: "u16", 32: "u32", 64: "u64"}[ebits]
            init = f"{ty} {elems} iota 0 1"
            if ebits == 8:
                init = f"u8 {elems} iota 0 1"
        else:  # sub-byte: random bits, a matrix of (elems * ebits / 8) bytes
            init = f"u8 {elems * ebits // 8} random {seed}"
        dt = "u64" if t == "f64" else "u32"
        case(f"tr_{k.name}", p80, k.name, [f"a {init}", f"d {dt} {32 * words} zeros dump"],
             ["element k of the matrix holds k (its low bits for 8-bit types): the dump is the fragment layout of "
              "wmma.load a/b in every layout"])
        seed += 1
    for t, shp, nc in WMMA_C:
        k, words = wmma_c_kernel(t, shp, nc)
        k80.append(k)
        m, n, _ = shape(shp)
        ty = {"f16": "u16", "f32": "u32", "s32": "u32", "f64": "u64"}[t]
        dt = "u64" if t == "f64" else "u32"
        case(f"tr_{k.name}", p80, k.name, [f"a {ty} {m * n} iota 0 1", f"d {dt} {32 * words} zeros dump"],
             ["element k holds k: the dump is the accumulator fragment layout, row- and column-major"])
    # signed zeros and infinities: sums of zeros only, infinity times zero, infinities alone
    rng = random.Random(4242)
    pick = lambda choices, n: "values " + " ".join(rng.choices([c for c, _ in choices], [w for _, w in choices], k=n))
    case("tr_mma_f16f32_k16_zeros", p80, "mma_f16f32_k16",
         ["a f16 256 " + pick([("0", 45), ("-0", 45), ("inf", 3), ("-inf", 2), ("1", 3), ("-1", 2)], 256),
          "b f16 128 " + pick([("0", 40), ("-0", 40), ("1", 10), ("-1", 10)], 128),
          "c f32 128 " + pick([("0", 40), ("-0", 40), ("1", 10), ("-1", 10)], 128), "d f32 128 zeros dump"],
         ["mostly signed zeros, some infinities: the sign of a sum of zeros, infinity times zero, lone infinities"])
    # the wmma kernels of kernels/tensor_cores.cu again, on inputs whose sums round
    tc = "tests/gpu/ptx/tensor_cores.sm_80.ptx"
    note = ["magnitudes over many binades: the result shows wmma's alignment and rounding"]
    case("tc_wmma_f16_f32_log", tc, "wmma_f16_f32", ["a f16 1024 lograndom 7001 -6 6", "b f16 1024 lograndom 7002 -6 6",
                                                     "c f32 256 zeros dump"], note)
    CASES["tc_wmma_f16_f32_log"] += "scalar K s32 64\n"
    case("tc_wmma_f16_f16_log", tc, "wmma_f16_f16", ["a f16 256 lograndom 7003 -3 3", "b f16 256 lograndom 7004 -3 3",
                                                     "cin f16 256 lograndom 7005 -4 6", "d f16 256 zeros dump"], note)
    case("tc_wmma_shapes_log", tc, "wmma_shapes", ["a f16 512 lograndom 7006 -6 6", "b f16 512 lograndom 7007 -6 6",
                                                   "c1 f32 256 zeros dump", "c2 f32 256 zeros dump"], note)
    case("tc_wmma_bf16_f32_log", tc, "wmma_bf16_f32", ["a bf16 256 lograndom 7008 -20 20",
                                                       "b bf16 256 lograndom 7009 -20 20", "c f32 256 zeros dump"], note)
    case("tc_wmma_tf32_f32_log", tc, "wmma_tf32_f32", ["a f32 256 lograndom 7010 -20 20",
                                                       "b f32 256 lograndom 7011 -20 20", "c f32 256 zeros dump"], note)
    case("tc_wmma_f64_log", tc, "wmma_f64", ["a f64 32 lograndom 7012 -30 30", "b f64 32 lograndom 7013 -30 30",
                                             "c f64 64 zeros dump"], note)
    case("tc_wmma_s8_s32_random", tc, "wmma_s8_s32", ["a s8 256 random 7014", "b s8 256 random 7015",
                                                      "c s32 256 zeros dump"], ["random bytes"])
    k90a = wgmma_cases()
    for path, target, version, ks in (("kernels/ptx/tensor_raw.ptx", "sm_80", "8.0", k80),
                                      ("kernels/ptx/tensor_raw_sm90.ptx", "sm_90", "8.4", k90),
                                      ("kernels/ptx/tensor_raw_sm90a.ptx", "sm_90a", "8.4", k90a)):
        text = header(target, version) + "\n".join(k.text() for k in ks)
        for out in (path, path.replace("kernels/ptx/", "tests/gpu/ptx/").replace(".ptx", ".handwritten.ptx")):
            with open(out, "w") as f:
                f.write(text)
    for name, text in CASES.items():
        with open(f"tests/gpu/cases/{name}.case", "w") as f:
            f.write(text)
    print(f"{len(k80) + len(k90)} kernels, {len(CASES)} cases")


if __name__ == "__main__":
    main()
