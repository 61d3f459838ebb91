#!/usr/bin/env python3
"""Checks the programs of kernels/apps against tests/gpu/apps/expected.txt.

  expect.py lint                         every kernels/apps program has one expectation, and back
  expect.py exec --ptxvm PTXVM --binary APP --name NAME [--work DIR]
                                         run APP under `ptxvm exec` and check the outcome
  expect.py gpu-results DIR              check results recorded on a GPU by run.sh (DIR/NAME.txt)

Exit status: 0 when everything matches, 1 when something differs, 2 on usage errors.
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
EXPECTED = os.path.join(HERE, "expected.txt")
PLATFORMS = ("gpu", "ptxvm")
STEPS = ("launch", "sync", "call", "after")
PTXVM_TIMEOUT_SECONDS = 150


@dataclass
class Expectation:
    name: str
    keys: dict  # "sync" or "ptxvm.sync" -> value

    def get(self, platform, key, default=None):
        return self.keys.get(f"{platform}.{key}", self.keys.get(key, default))


@dataclass
class Outcome:
    """How one run of a program ended: exit status (or hang), its output, its report."""
    ended: str  # "exit" or "hang"
    status: int = 0
    stdout: str = ""
    stderr: str = ""
    report: dict = None
    report_error: str = ""
    problems: list = field(default_factory=list)

    def lines(self):
        return self.stdout.splitlines()


def read_expectations(path=EXPECTED):
    expectations = {}
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            tokens = shlex.split(line)
            keys = {}
            for token in tokens[1:]:
                if "=" not in token:
                    raise SystemExit(f"{path}:{number}: '{token}' is not KEY=VALUE")
                key, value = token.split("=", 1)
                keys[key] = value
            if keys.get("kind") not in ("app", "misuse"):
                raise SystemExit(f"{path}:{number}: kind=app or kind=misuse is required")
            if tokens[0] in expectations:
                raise SystemExit(f"{path}:{number}: '{tokens[0]}' is listed twice")
            expectations[tokens[0]] = Expectation(tokens[0], keys)
    return expectations


def source_programs():
    """Program names from the sources: vector_add, misuse/partner_exited, ..."""
    apps = os.path.join(REPO, "kernels", "apps")
    names = [f[:-3] for f in os.listdir(apps) if f.endswith(".cu")]
    names += ["misuse/" + f[:-3] for f in os.listdir(os.path.join(apps, "misuse")) if f.endswith(".cu")]
    return sorted(names)


def step_value(outcome, step):
    """The error name printed on the program's '<step> NAME' line, or None."""
    for line in outcome.lines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == step:
            return parts[1]
    return None


def check(expectation, platform, outcome):
    """The list of differences between an outcome and what is expected on `platform`."""
    problems = list(outcome.problems)
    get = lambda key, default=None: expectation.get(platform, key, default)
    kind = expectation.keys["kind"]
    want_end = get("outcome", "exit")
    if outcome.ended != want_end:
        problems.append(f"ended by {outcome.ended}, expected {want_end}")
    elif outcome.ended == "exit" and outcome.status != int(get("exit", "0")):
        problems.append(f"exit status {outcome.status}, expected {get('exit', '0')}")
    lines = outcome.lines()
    if kind == "app" and outcome.ended == "exit":
        last = lines[-1] if lines else "(no output)"
        if last != "PASSED":
            problems.append(f"last stdout line is '{last}', expected 'PASSED'")
    if get("stdout"):
        with open(os.path.join(REPO, get("stdout")), encoding="utf-8") as f:
            want = f.read()
        if outcome.stdout != want:
            problems.append("stdout differs from " + get("stdout") + ":\n" + first_difference(outcome.stdout, want))
    if kind == "misuse":
        for step in STEPS:
            want = get(step, "cudaSuccess" if step == "launch" else None)
            if want is None:
                continue
            got = step_value(outcome, step)
            if got != want:
                problems.append(f"'{step}' printed {got or 'nothing'}, expected {want}")
        result = get("result")
        results = [line for line in lines if line.startswith("result")]
        if result == "ok" and results != ["result ok"]:
            problems.append(f"result lines {results}, expected ['result ok']")
        if result == "none" and results:
            problems.append(f"result lines {results}, expected none")
    if platform == "ptxvm":
        problems += check_report(expectation, outcome)
        want_stderr = get("stderr")
        if want_stderr and want_stderr not in outcome.stderr:
            problems.append(f"stderr does not contain '{want_stderr}'")
    return problems


def check_report(expectation, outcome):
    if outcome.report is None:
        return [f"no usable --report JSON: {outcome.report_error}"]
    diagnostics = outcome.report.get("diagnostics", [])
    kinds = {d.get("kind") for d in diagnostics}
    errors = [d for d in diagnostics if d.get("severity") == "error"]
    loud = [d for d in diagnostics if d.get("severity") in ("error", "warning")]
    want = expectation.get("ptxvm", "diag")
    describe = lambda ds: ", ".join(sorted({f"{d.get('kind')} ({d.get('severity')})" for d in ds}))
    if want is None:
        return [f"unexpected error diagnostics: {describe(errors)}"] if errors else []
    if want == "none":
        return [f"unexpected diagnostics: {describe(loud)}"] if loud else []
    if want == "any":
        return [] if errors else ["no error diagnostic reported"]
    missing = [k for k in want.split(",") if k not in kinds]
    return [f"diagnostic {k} not reported (got: {describe(diagnostics) or 'none'})" for k in missing]


def first_difference(got, want):
    got_lines, want_lines = got.splitlines(), want.splitlines()
    for i in range(max(len(got_lines), len(want_lines))):
        g = got_lines[i] if i < len(got_lines) else "(end of output)"
        w = want_lines[i] if i < len(want_lines) else "(end of file)"
        if g != w:
            return f"  line {i + 1}: got      {g!r}\n  line {i + 1}: expected {w!r}"
    return "  (trailing newline differs)"


def run_under_ptxvm(expectation, ptxvm, binary, work):
    os.makedirs(work, exist_ok=True)
    report = os.path.join(work, expectation.name.replace("/", ".") + ".report.json")
    if os.path.exists(report):
        os.remove(report)
    flags = shlex.split(expectation.get("ptxvm", "flags", ""))
    command = [ptxvm, "exec", *flags, "--report", report, "--", binary]
    print("$ " + " ".join(shlex.quote(c) for c in command))
    try:
        done = subprocess.run(command, capture_output=True, timeout=PTXVM_TIMEOUT_SECONDS)
        outcome = Outcome("exit", done.returncode, done.stdout.decode(errors="replace"),
                          done.stderr.decode(errors="replace"))
    except subprocess.TimeoutExpired as e:
        outcome = Outcome("hang", 0, (e.stdout or b"").decode(errors="replace"),
                          (e.stderr or b"").decode(errors="replace"))
        outcome.problems.append(f"ptxvm exec did not finish in {PTXVM_TIMEOUT_SECONDS} s")
    except OSError as e:
        outcome = Outcome("exit", -1)
        outcome.problems.append(f"cannot run {ptxvm}: {e}")
    try:
        with open(report, encoding="utf-8") as f:
            outcome.report = json.load(f)
    except (OSError, ValueError) as e:
        outcome.report_error = str(e)
    return outcome


def read_gpu_result(path):
    """A file written by run.sh: 'outcome exit N' / 'outcome hang', 'stdout LINE', 'stderr LINE'."""
    outcome = Outcome("exit")
    stdout, stderr = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            key, _, rest = line.partition(" ")
            if key == "outcome":
                parts = rest.split()
                outcome.ended = parts[0]
                if parts[0] == "exit":
                    outcome.status = int(parts[1])
            elif key == "stdout":
                stdout.append(rest)
            elif key == "stderr":
                stderr.append(rest)
    outcome.stdout = "".join(s + "\n" for s in stdout)
    outcome.stderr = "".join(s + "\n" for s in stderr)
    return outcome


def show(outcome):
    for name, text in (("stdout", outcome.stdout), ("stderr", outcome.stderr)):
        tail = text.splitlines()[-30:]
        print(f"--- {name} ({len(text.splitlines())} lines, last {len(tail)}):")
        for line in tail:
            print("  " + line)


def command_lint(_):
    expectations = read_expectations()
    sources = set(source_programs())
    problems = [f"{n}: a program without an expectation in expected.txt" for n in sorted(sources - set(expectations))]
    problems += [f"{n}: an expectation without a program in kernels/apps" for n in sorted(set(expectations) - sources)]
    for name, e in sorted(expectations.items()):
        for key in e.keys:
            base = key.split(".", 1)[1] if key.split(".", 1)[0] in PLATFORMS else key
            if base not in ("kind", "outcome", "exit", "result", "stdout", "flags", "diag", "stderr", "note") + STEPS:
                problems.append(f"{name}: unknown key '{key}'")
        stdout = e.keys.get("stdout")
        if stdout and not os.path.isfile(os.path.join(REPO, stdout)):
            problems.append(f"{name}: stdout file {stdout} does not exist")
    for p in problems:
        print(p)
    print(f"{len(expectations)} expectations, {len(sources)} programs, {len(problems)} problems")
    return 1 if problems else 0


def command_exec(args):
    expectations = read_expectations()
    if args.name not in expectations:
        print(f"{args.name}: no expectation in {EXPECTED}")
        return 1
    expectation = expectations[args.name]
    outcome = run_under_ptxvm(expectation, args.ptxvm, args.binary, args.work)
    show(outcome)
    problems = check(expectation, "ptxvm", outcome)
    for p in problems:
        print("DIFFERS: " + p)
    print(f"{args.name}: {'as expected' if not problems else 'NOT as expected'}")
    return 1 if problems else 0


def command_gpu_results(args):
    expectations = read_expectations()
    failed = 0
    for name, expectation in sorted(expectations.items()):
        path = os.path.join(args.dir, name + ".txt")
        if not os.path.exists(path):
            print(f"{name}: not recorded ({path})")
            failed += 1
            continue
        problems = check(expectation, "gpu", read_gpu_result(path))
        print(f"{name}: {'as expected' if not problems else 'DIFFERS'}")
        for p in problems:
            print("    " + p.replace("\n", "\n    "))
        failed += bool(problems)
    print(f"{len(expectations) - failed} of {len(expectations)} programs as expected on the GPU")
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("lint")
    run = sub.add_parser("exec")
    run.add_argument("--ptxvm", required=True)
    run.add_argument("--binary", required=True)
    run.add_argument("--name", required=True)
    run.add_argument("--work", default=os.path.join(os.getcwd(), "apps-work"))
    gpu = sub.add_parser("gpu-results")
    gpu.add_argument("dir")
    args = parser.parse_args()
    return {"lint": command_lint, "exec": command_exec, "gpu-results": command_gpu_results}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
