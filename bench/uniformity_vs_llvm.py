#!/usr/bin/env python3
"""ptxvm's divergence analysis against LLVM 19's NVPTX uniformity analysis, by CUDA source line
(issue 17, item 6).

Measures, for every line of kernels/NAME.cu, whether ptxvm (`ptxvm analyze`) and LLVM
(`opt-19 -passes='print<uniformity>'`) prove the values computed on that line uniform, and the
same for its conditional branches. ptxvm reads the PTX nvcc 13 made of the file, LLVM the NVVM IR
clang-19 made of it: the code differs, so they meet only at source lines. Two levels:
  O3  ptxvm on build/corpus/NAME.sm_80.lineinfo.ptx (nvcc -lineinfo)  vs  clang-19 -O3
  O0  ptxvm on build/corpus/NAME.sm_80.G.ptx        (nvcc -G)         vs  clang-19 -O0

LLVM: clang-19 CLANG_FLAGS (math_fast.cu also gets clang's -use_fast_math). CUDA 13 is newer
than clang 19 knows: -Wno-unknown-cuda-version, an empty texture_fetch_functions.h (gone from
CUDA 13, still included by clang's CUDA wrapper), CCCL's include directory (nvcc adds it itself),
and COMPAT_HEADER for what clang 19 lacks (__managed__, __ldcg & co., surf2Dread/surf2Dwrite: their
results come from an opaque call, which LLVM never calls uniform). `__shared__ alignas(N)`, which
clang rejects, becomes `alignas(N) __shared__` in a copy of the file (same lines). A file clang
still rejects is skipped. Values: instructions with a result; branches: `br i1` and `switch`; each
charged to a line through its !dbg. Mind LLVM 19's NVPTX sources of divergence
(NVPTXTTIImpl::isSourceOfDivergence): every call, intrinsics included (ctaid, ntid, llvm.fma,
llvm.smax...), every load through a generic or local pointer, every atomic, the arguments of
non-kernel functions.

ptxvm: `ptxvm analyze --format json --kernel K --block X,Y,Z` for each block shape that
tests/gpu/cases/*.case launches K with (a line must be uniform under each), and once without
--block for the functions no case reaches. Values: the defs (cta- or warp-uniform count as
uniform); branches: `bra` with a guard, uniformity from the JSON's `branch` field.

Inlined code is charged to its innermost location in NAME.cu, following LLVM's inlinedAt chain
and PTX's .loc `inlined_at` chain alike: header code counts on the NAME.cu line that calls it.
Code that never reaches NAME.cu (e.g. headers' non-inlined functions under -G) is left out.

A line is uniform for a side when all of that side's values on it are. Columns (ptxvm/LLVM):
U/U, U/D (only ptxvm proves it), D/U (only LLVM: listed one by one), D/D; p-only and l-only:
lines that only ptxvm or only LLVM has values on.

Usage: python3 bench/uniformity_vs_llvm.py --build build [--json out.json] [--levels O3,O0]
Python 3 standard library only; intermediate files in BUILD/uniformity-vs-llvm/.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CUDA = "/usr/local/cuda"
CLANG_FLAGS = ["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_80",
               f"--cuda-path={CUDA}", "-Wno-unknown-cuda-version", "-std=c++17",
               "-gline-tables-only", "-emit-llvm", "-S"]
EXTRA_CLANG_FLAGS = {"math_fast": ["-ffast-math", "-fgpu-flush-denormals-to-zero",
                                   "-fgpu-approx-transcendentals"]}
PTX_VARIANT = {"O3": "sm_80.lineinfo.ptx", "O0": "sm_80.G.ptx"}
COMPAT_HEADER = """// From bench/uniformity_vs_llvm.py: what clang 19 lacks of CUDA 13's device API.
#undef __managed__
#define __managed__ __device__
template <class T> __device__ T uvl_opaque(const void *);
#define UVL_LOAD(name) template <class T> __device__ T name(const T *p) { return uvl_opaque<T>(p); }
UVL_LOAD(__ldcg) UVL_LOAD(__ldcs) UVL_LOAD(__ldlu) UVL_LOAD(__ldcv)
#define UVL_STORE(name) template <class T> __device__ void name(T *p, T v) { *p = v; }
UVL_STORE(__stcg) UVL_STORE(__stcs) UVL_STORE(__stwt) UVL_STORE(__stwb)
template <class T> __device__ void surf2Dread(T *out, cudaSurfaceObject_t s, int x, int y, ...)
{ *out = uvl_opaque<T>(out); }
template <class T> __device__ void surf2Dwrite(T, cudaSurfaceObject_t, int, int, ...) {}
"""
CATEGORIES = ["U/U", "U/D", "D/U", "D/D", "p-only", "l-only"]


class LineFacts:
    """Per source line: how many values / branches one side found uniform and divergent."""

    def __init__(self):
        self.values = defaultdict(lambda: [0, 0])    # line -> [uniform, divergent]
        self.branches = defaultdict(lambda: [0, 0])
        self.notes = defaultdict(list)               # line -> divergent values, for the listing

    def add(self, kind, line, uniform, note=None):
        table = self.values if kind == "value" else self.branches
        table[line][0 if uniform else 1] += 1
        if not uniform and note and len(self.notes[line]) < 4:
            self.notes[line].append(note)


def run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True)
    except OSError as error:
        raise RuntimeError(f"{os.path.basename(cmd[0])}: {error}")


# ---- LLVM side ------------------------------------------------------------------------------

def clang_ready_source(cu_path, directory):
    """The source, or a copy of it clang 19 accepts with the same lines."""
    text = open(cu_path).read()
    fixed = re.sub(r"__shared__\s+(alignas\(\s*\d+\s*\))", r"\1 __shared__", text)
    if fixed == text:
        return cu_path
    os.makedirs(directory, exist_ok=True)
    copy = os.path.join(directory, os.path.basename(cu_path))
    open(copy, "w").write(fixed)
    return copy


def compile_and_analyse(stem, level, work, clang, opt):
    """clang-19 then opt-19; returns (module text, opt report) or raises RuntimeError."""
    source = clang_ready_source(os.path.join(REPO, "kernels", stem + ".cu"),
                                os.path.join(work, "src-" + level))
    ir = os.path.join(work, f"{stem}.{level}.ll")
    shim = os.path.join(work, "shim")
    cmd = [clang, *CLANG_FLAGS, f"-{level}", "-idirafter", shim, "-isystem",
           f"{CUDA}/include/cccl", "-include", os.path.join(shim, "uvl_compat.h"),
           "-I", os.path.join(REPO, "kernels"), *EXTRA_CLANG_FLAGS.get(stem, []), source,
           "-o", ir]
    done = run(cmd)
    if done.returncode:
        errors = [re.sub(r"^\S*/", "", l) for l in done.stderr.splitlines() if "error:" in l]
        raise RuntimeError("clang-19: " + ("; ".join(errors[:2]) or done.stderr[-300:]))
    analysed = ir[:-3] + ".opt.ll"
    done = run([opt, "-passes=print<uniformity>", "-S", "-o", analysed, ir])
    if done.returncode:
        raise RuntimeError("opt-19: " + done.stderr[-300:])
    open(ir[:-3] + ".uniformity.txt", "w").write(done.stderr)
    return open(analysed).read(), done.stderr


METADATA_RE = re.compile(r"^!(\d+) = (?:distinct )?!(\w+)\((.*)\)\s*$")
FIELD_RE = re.compile(r'(\w+): (!\d+|"(?:[^"\\]|\\.)*"|[\w.-]+)')


def debug_locations(module_text, stem):
    """!dbg id -> line in STEM.cu (innermost location in that file, see the header)."""
    nodes = {}
    for line in module_text.splitlines():
        match = METADATA_RE.match(line)
        if match:
            fields = dict(FIELD_RE.findall(match.group(3)))
            nodes["!" + match.group(1)] = (match.group(2), fields)

    def file_of(scope, depth=0):
        kind, fields = nodes.get(scope, ("", {}))
        if kind == "DIFile":
            return fields.get("filename", "").strip('"')
        if "file" in fields:
            return file_of(fields["file"], depth + 1)
        return file_of(fields["scope"], depth + 1) if "scope" in fields and depth < 50 else ""

    lines = {}
    for node_id in (n for n, (kind, _) in nodes.items() if kind == "DILocation"):
        here = node_id
        for _ in range(50):                 # innermost first, out along inlinedAt
            fields = nodes[here][1]
            if os.path.basename(file_of(fields.get("scope", ""))) == stem + ".cu":
                lines[node_id] = int(fields["line"])
                break
            here = fields.get("inlinedAt")
            if here not in nodes:
                break
    return lines


def module_functions(text):
    """function name -> its instructions, in order, from the module's text."""
    bodies, name = {}, None
    for raw in text.splitlines():
        header = re.match(r'^define [^@]*@("[^"]+"|[^\s(]+)\(', raw)
        if header:
            name = header.group(1).strip('"')
            bodies[name] = []
        elif raw == "}":
            name = None
        elif name and raw.startswith("  ") and not raw.lstrip().startswith(("#dbg_", ";")):
            bodies[name].append(raw.strip())
    return bodies


def report_functions(report):
    """function name -> [(divergent, instruction)], in order, from opt's print<uniformity>."""
    bodies, name, listing = {}, None, False
    for raw in report.splitlines():
        header = re.match(r"^UniformityInfo for function '(.+)':", raw)
        if header:
            name = header.group(1)
            bodies[name] = []
        elif raw in ("DEFINITIONS", "TERMINATORS"):
            listing = True
        elif raw.startswith(("END BLOCK", "BLOCK ", "CYCLES", "DIVERGENT ARG")) or not raw.strip():
            listing = False
        elif listing:
            text = raw.strip()
            bodies[name].append((text.startswith("DIVERGENT:"),
                                 text.split("DIVERGENT:", 1)[-1].strip()))
    return bodies


def llvm_facts(stem, module_text, report):
    """opt numbers metadata and attribute groups per function when it prints, so its lines are
    matched to the module's instructions by position (checked on the text) to find the !dbg."""
    facts = LineFacts()
    lines = debug_locations(module_text, stem)
    module = module_functions(module_text)
    unnumbered = lambda text: re.sub(r"[!#]\d+", "", text)
    for name, reported in report_functions(report).items():
        instructions = module.get(name, [])
        if len(instructions) != len(reported) or any(
                unnumbered(i) != unnumbered(p) for i, (_, p) in zip(instructions, reported)):
            raise RuntimeError(f"opt's report on {name} does not match the module")
        for instruction, (divergent, _) in zip(instructions, reported):
            dbg = re.search(r"!dbg (!\d+)", instruction)
            line = lines.get(dbg.group(1)) if dbg else None
            if not line:
                continue
            if re.match(r'%[-\w.$"]+ = ', instruction):
                facts.add("value", line, not divergent)
            elif re.match(r"(br i1 |switch )", instruction):
                facts.add("branch", line, not divergent)
    return facts


# ---- ptxvm side -----------------------------------------------------------------------------

LOC_RE = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)(?:.*inlined_at\s+(\d+)\s+(\d+)\s+(\d+))?")
FILE_RE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]+)"')


def ptx_source_lines(ptx_text, stem):
    """PTX line number (1-based) -> (line in STEM.cu or None, has a guard predicate)."""
    text_lines = ptx_text.splitlines()
    own_files = {m.group(1) for m in map(FILE_RE.match, text_lines)
                 if m and os.path.basename(m.group(2)) == stem + ".cu"}
    caller_of = {}          # (file, line, col) -> the (file, line, col) it is inlined at
    current = None
    result = {}
    for number, text in enumerate(text_lines, 1):
        if re.match(r"^\s*(\.visible\s+|\.weak\s+)?\.(entry|func)\b", text):
            caller_of, current = {}, None
        match = LOC_RE.match(text)
        if match:
            current = match.group(1, 2, 3)
            caller_of[current] = match.group(4, 5, 6) if match.group(4) else None
            continue
        here, source_line = current, None
        for _ in range(50):
            if here is None:
                break
            if here[0] in own_files:
                source_line = int(here[1])
                break
            here = caller_of.get(here)
        result[number] = (source_line, bool(re.match(r"^\s*@!?%\w+\s", text)))
    return result


def case_block_shapes():
    """(corpus stem, kernel) -> block shapes ("X,Y,Z") tests/gpu/cases/*.case launch it with."""
    shapes = defaultdict(set)
    cases = os.path.join(REPO, "tests", "gpu", "cases")
    for name in sorted(os.listdir(cases)):
        fields = {}
        for text in open(os.path.join(cases, name)):
            parts = text.split()
            if len(parts) >= 2 and parts[0] in ("ptx", "kernel", "block"):
                fields[parts[0]] = parts[1:]
        ptx = os.path.basename(fields.get("ptx", [""])[0])
        if re.match(r"^\w+\.sm_\d+\.ptx$", ptx) and "kernel" in fields and "block" in fields:
            shapes[(ptx.split(".")[0], fields["kernel"][0])].add(",".join(fields["block"]))
    return shapes


def ptxvm_json(ptxvm, ptx_path, extra):
    done = run([ptxvm, "analyze", "--format", "json", *extra, ptx_path])
    try:                                  # exit status 1 is a barrier finding, not a failure
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        raise RuntimeError(f"ptxvm analyze {' '.join(extra)}: {done.stderr.strip()[-300:]}")


def ptxvm_facts(stem, ptx_path, ptxvm, shapes):
    ptx_text = open(ptx_path).read()
    source_of = ptx_source_lines(ptx_text, stem)
    whole = ptxvm_json(ptxvm, ptx_path, [])
    runs, covered = [], set()
    for function in whole["functions"]:
        for block in sorted(shapes.get((stem, function["name"]), ())):
            result = ptxvm_json(ptxvm, ptx_path, ["--kernel", function["name"], "--block", block])
            runs.append(result)
            covered.update(f["name"] for f in result["functions"])
    runs.append({"functions": [f for f in whole["functions"] if f["name"] not in covered]})
    facts = LineFacts()
    for result in runs:
        for function in result["functions"]:
            for instruction in function["instructions"]:
                line, guarded = source_of.get(instruction["ptx_line"], (None, False))
                if line is None:
                    continue
                for definition in instruction["defs"]:
                    if definition["reg"].startswith("["):       # a memory slot, not a value
                        continue
                    uniform = definition["uniformity"] != "divergent"
                    facts.add("value", line, uniform,
                              f"{instruction['opcode']} {definition['reg']} ({function['name']})")
                if instruction["opcode"].startswith("bra") and guarded:
                    uniform = instruction.get("branch", {}).get("uniformity") != "divergent"
                    facts.add("branch", line, uniform, f"{instruction['opcode']} (branch)")
    return facts


# ---- comparison -----------------------------------------------------------------------------

def classify(ptxvm_table, llvm_table):
    """category -> sorted source lines, for one kind (values or branches)."""
    result = {category: [] for category in CATEGORIES}
    for line in sorted(set(ptxvm_table) | set(llvm_table)):
        if line not in llvm_table:
            result["p-only"].append(line)
        elif line not in ptxvm_table:
            result["l-only"].append(line)
        else:
            verdict = lambda table: "U" if table[line][1] == 0 else "D"
            result[verdict(ptxvm_table) + "/" + verdict(llvm_table)].append(line)
    return result


def analyse_file(stem, level, work, tools, shapes):
    ptx_path = os.path.join(tools["build"], "corpus", f"{stem}.{PTX_VARIANT[level]}")
    if not os.path.exists(ptx_path):
        raise RuntimeError(f"{os.path.relpath(ptx_path, REPO)} missing (build ptx_corpus)")
    module_text, report = compile_and_analyse(stem, level, work, tools["clang"], tools["opt"])
    llvm = llvm_facts(stem, module_text, report)
    ptxvm = ptxvm_facts(stem, ptx_path, tools["ptxvm"], shapes)
    source = open(os.path.join(REPO, "kernels", stem + ".cu")).read().splitlines()
    losses = []
    values = classify(ptxvm.values, llvm.values)
    branches = classify(ptxvm.branches, llvm.branches)
    for kind, classes, llvm_table in (("value", values, llvm.values),
                                      ("branch", branches, llvm.branches)):
        for line in classes["D/U"]:
            losses.append({"file": stem + ".cu", "line": line, "kind": kind,
                           "source": source[line - 1].strip() if line <= len(source) else "",
                           "ptxvm_divergent": ptxvm.notes[line],
                           "llvm_uniform_count": llvm_table[line][0]})
    counts = {side: [sum(u for u, _ in facts.values.values()), sum(map(sum, facts.values.values()))]
              for side, facts in (("ptxvm", ptxvm), ("llvm", llvm))}
    return {"values": values, "branches": branches, "losses": losses, "value_counts": counts}


def text_table(level, per_file):
    row = lambda name, cells: (name.ljust(20) + "".join(f"{n:>7}" for n in cells[:6]) + " | "
                               + "".join(f"{n:>7}" for n in cells[6:]))
    out = [f"== {level}: ptxvm on NAME.{PTX_VARIANT[level]} vs clang-19 -{level}, opt-19 "
           "print<uniformity>", "", " " * 20 + f"{'values (lines)':^42} | {'branches (lines)':^42}",
           row("file", CATEGORIES * 2)]
    totals = [0] * 12
    for stem, result in sorted(per_file.items()):
        cells = [len(result[kind][c]) for kind in ("values", "branches") for c in CATEGORIES]
        totals = [t + n for t, n in zip(totals, cells)]
        out.append(row(stem, cells))
    out.append(row("total", totals))
    for side, name in (("ptxvm", "ptxvm"), ("llvm", "LLVM")):
        uniform, total = (sum(r["value_counts"][side][i] for r in per_file.values())
                          for i in (0, 1))
        out.append(f"{name}: {uniform} of the {total} values on these lines uniform "
                   f"({100 * uniform / max(total, 1):.0f}%)")
    losses = [loss for _, r in sorted(per_file.items()) for loss in r["losses"]]
    out += ["", f"Lines LLVM proves uniform and ptxvm does not ({len(losses)}):"]
    for loss in losses:
        out.append(f"  {loss['file']}:{loss['line']} [{loss['kind']}] {loss['source']}")
        out.append(f"      LLVM: {loss['llvm_uniform_count']} uniform; ptxvm divergent: "
                   + "; ".join(loss["ptxvm_divergent"]))
    return out, {kind: dict(zip(CATEGORIES, totals[6 * i:6 * i + 6]))
                 for i, kind in enumerate(("values", "branches"))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="ptxvm build directory")
    parser.add_argument("--json", help="also write the results as JSON to this file")
    parser.add_argument("--levels", default="O3,O0", help="O3, O0 or both (default O3,O0)")
    parser.add_argument("--ptxvm", help="the ptxvm binary (default BUILD/bin/ptxvm)")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    ptxvm = os.path.abspath(args.ptxvm or os.path.join(build, "bin", "ptxvm"))
    tools = {"build": build, "ptxvm": ptxvm, "clang": shutil.which("clang-19"),
             "opt": shutil.which("opt-19")}
    for missing, hint in ((not tools["clang"] or not tools["opt"], "apt-get install clang-19"),
                          (not os.access(ptxvm, os.X_OK), f"no {ptxvm}: ninja -C BUILD ptxvm"),
                          (not os.path.isdir(os.path.join(build, "corpus")),
                           "no BUILD/corpus: ninja -C BUILD ptx_corpus")):
        if missing:
            sys.exit("uniformity_vs_llvm: " + hint)
    work = os.path.join(build, "uniformity-vs-llvm")
    os.makedirs(os.path.join(work, "shim"), exist_ok=True)
    open(os.path.join(work, "shim", "texture_fetch_functions.h"), "w").write(
        "// Empty: CUDA 13 dropped this header, clang 19's CUDA wrapper still includes it.\n")
    open(os.path.join(work, "shim", "uvl_compat.h"), "w").write(COMPAT_HEADER)
    stems = sorted(name[:-3] for name in os.listdir(os.path.join(REPO, "kernels"))
                   if name.endswith(".cu"))
    shapes = case_block_shapes()
    levels = [level.strip() for level in args.levels.split(",") if level.strip()]
    report, document = [], {"levels": {}, "skipped": []}
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 4) as pool:
        jobs = {(level, stem): pool.submit(analyse_file, stem, level, work, tools, shapes)
                for level in levels for stem in stems}
        for level in levels:
            per_file = {}
            for stem in stems:
                try:
                    per_file[stem] = jobs[(level, stem)].result()
                except RuntimeError as error:
                    document["skipped"].append({"level": level, "file": stem + ".cu",
                                                "reason": str(error)})
            lines, totals = text_table(level, per_file)
            report += lines + [""]
            document["levels"][level] = {"files": per_file, "totals": totals}
    report.append("Skipped:" if document["skipped"] else "Skipped: none")
    for skip in document["skipped"]:
        report.append(f"  {skip['level']} {skip['file']}: {skip['reason']}")
    legend = ("Columns (ptxvm/LLVM): U/U both uniform, U/D only ptxvm uniform, D/U only LLVM "
              "uniform, D/D both divergent, p-only/l-only: only ptxvm/LLVM has values there.")
    tree = run(["git", "-C", REPO, "describe", "--always", "--dirty"]).stdout.strip()
    print("\n".join(["Uniformity by CUDA source line: ptxvm analyze vs LLVM 19 (NVPTX)",
                     f"ptxvm: {ptxvm} (source tree {tree or 'unknown'}); "
                     + run([tools["clang"], "--version"]).stdout.splitlines()[0], legend, ""]
                    + report))
    if args.json:
        with open(args.json, "w") as stream:
            json.dump(document, stream, indent=1)


if __name__ == "__main__":
    main()
