"""trace_check.py [--list] FILE.json: checks a trace against the Chrome trace-event format (the JSON
object form, as ui.perfetto.dev and chrome://tracing read it) and the rules ptxvm's traces
keep. Prints "trace ok: N events" or the first problems, and exits 1 on any.

Checked: the top level ({"traceEvents": [...]}, optional displayTimeUnit "ms"|"ns",
otherData an object); per event, the fields each phase needs and their types (X: name, ts,
dur >= 0, pid, tid; i: s in t/p/g; s/f: id, f with bp "e"; M: a known metadata name with
its args); complete events of one thread nest (none overlaps another partially); every flow
end has a start with the same id no later than itself, and every start has an end; metadata
names every pid and tid used. With --list, also prints the events one per line, ordered by
process, thread and time ("pid/tid ph ts[+dur] name {args}"), metadata first, for FileCheck.
"""
import json
import sys

problems = []


def problem(message):
    if len(problems) < 20:
        problems.append(message)


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def main(path):
    with open(path) as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        problem("the top level is not {\"traceEvents\": [...]}")
        return 0
    if "displayTimeUnit" in doc and doc["displayTimeUnit"] not in ("ms", "ns"):
        problem("displayTimeUnit is neither ms nor ns")
    if "otherData" in doc and not isinstance(doc["otherData"], dict):
        problem("otherData is not an object")
    events = doc["traceEvents"]
    spans = {}
    flow_starts, flow_ends = {}, []
    named_pids, named_tids, used = set(), set(), set()
    for n, e in enumerate(events):
        where = "event %d (%s)" % (n, json.dumps(e)[:120])
        if not isinstance(e, dict) or not isinstance(e.get("ph"), str):
            problem(where + ": not an object with a phase")
            continue
        ph = e["ph"]
        if ph != "M" and not number(e.get("ts")):
            problem(where + ": ts is not a number")
        if not isinstance(e.get("pid"), int) or (ph != "M" and not isinstance(e.get("tid"), int)):
            problem(where + ": pid/tid are not integers")
            continue
        if "args" in e and not isinstance(e["args"], dict):
            problem(where + ": args is not an object")
        if ph == "M":
            name = e.get("name")
            if name not in ("process_name", "thread_name", "process_sort_index", "thread_sort_index"):
                problem(where + ": unknown metadata " + str(name))
            args = e.get("args", {})
            if name in ("process_name", "thread_name") and not isinstance(args.get("name"), str):
                problem(where + ": no name in args")
            if name in ("process_sort_index", "thread_sort_index") and not isinstance(args.get("sort_index"), int):
                problem(where + ": no sort_index in args")
            if name == "process_name":
                named_pids.add(e["pid"])
            if name == "thread_name":
                named_tids.add((e["pid"], e.get("tid")))
            continue
        used.add((e["pid"], e["tid"]))
        if not isinstance(e.get("name"), str) or not e["name"]:
            problem(where + ": no name")
        if ph == "X":
            if not number(e.get("dur")) or e["dur"] < 0:
                problem(where + ": dur is missing or negative")
                continue
            spans.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"], n))
        elif ph == "i":
            if e.get("s", "t") not in ("t", "p", "g"):
                problem(where + ": instant scope is not t, p or g")
        elif ph == "s":
            if "id" not in e:
                problem(where + ": flow start without id")
            elif e["id"] in flow_starts:
                problem(where + ": flow id used twice")
            else:
                flow_starts[e["id"]] = e["ts"]
        elif ph == "f":
            if "id" not in e or e.get("bp") != "e":
                problem(where + ": flow end without id or bp \"e\"")
            else:
                flow_ends.append((e["id"], e["ts"], where))
        else:
            problem(where + ": unexpected phase " + ph)
    for key, list_ in spans.items():
        list_.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for begin, end, n in list_:
            while stack and stack[-1][1] <= begin:
                stack.pop()
            if stack and end > stack[-1][1]:
                problem("spans %d and %d of pid %d tid %d overlap without nesting" % (stack[-1][2], n, key[0], key[1]))
            stack.append((begin, end, n))
    ended = set()
    for id_, ts, where in flow_ends:
        if id_ not in flow_starts:
            problem(where + ": flow end without a start")
        elif flow_starts[id_] > ts:
            problem(where + ": flow ends before it starts")
        ended.add(id_)
    for id_ in flow_starts:
        if id_ not in ended:
            problem("flow %s starts but never ends" % id_)
    for pid, tid in used:
        if pid not in named_pids:
            problem("pid %d has no process_name" % pid)
        if (pid, tid) not in named_tids:
            problem("pid %d tid %d has no thread_name" % (pid, tid))
    return len(events)


def listing(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    for e in events:
        if e["ph"] == "M":
            print("%d/%s M %s %s" % (e["pid"], e.get("tid", "-"), e["name"], json.dumps(e.get("args", {}), sort_keys=True)))
    rest = [e for e in events if e["ph"] != "M"]
    rest.sort(key=lambda e: (e["pid"], e["tid"], e["ts"], e["ph"] != "X"))
    for e in rest:
        time = "%g" % e["ts"] + ("+%g" % e["dur"] if e["ph"] == "X" else "")
        args = json.dumps(e["args"], sort_keys=True) if e.get("args") else ""
        print("%d/%d %s %s %s %s" % (e["pid"], e["tid"], e["ph"], time, e["name"], args))


if __name__ == "__main__":
    path = sys.argv[-1]
    count = main(path)
    if "--list" in sys.argv[1:-1] and not problems:
        listing(path)
    if problems:
        for p in problems:
            print("trace problem: " + p)
        sys.exit(1)
    print("trace ok: %d events" % count)
