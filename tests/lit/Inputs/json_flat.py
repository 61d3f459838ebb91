"""Prints a JSON document one value per line, `path = value`, for FileCheck.

    json_flat.py [FILE]        (stdin without FILE)

Tests check the parsed document this way instead of matching its spelling:
keys keep their order, scalars and arrays of scalars print as compact JSON,
and anything that is not exactly one JSON document fails with exit status 1.

    {"launches":[{"kernel":"k","grid":[2,1,1]}]}
    ->  launches[0].kernel = "k"
        launches[0].grid = [2,1,1]
"""
import json
import re
import sys

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def scalar(value):
    return not isinstance(value, (dict, list)) or not value


def flatten(value, path, out):
    if isinstance(value, dict) and value:
        for key, item in value.items():
            step = ("." + key if path else key) if IDENTIFIER.match(key) else "[" + compact(key) + "]"
            flatten(item, path + step, out)
    elif isinstance(value, list) and value and not all(scalar(v) for v in value):
        for index, item in enumerate(value):
            flatten(item, f"{path}[{index}]", out)
    else:
        out.append(f"{path} = {compact(value)}")


def main():
    text = open(sys.argv[1], encoding="utf-8").read() if len(sys.argv) > 1 else sys.stdin.read()
    try:
        document = json.loads(text)
    except json.JSONDecodeError as e:
        print(f"json_flat.py: not JSON: {e}", file=sys.stderr)
        return 1
    lines = []
    flatten(document, "", lines)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
