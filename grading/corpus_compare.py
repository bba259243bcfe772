#!/usr/bin/env python3
"""grading/corpus_compare.py: whether a class graded elsewhere (on a GPU, through
kernels/gpu_bundle.sh --grader LAB) gave each case of the grader's corpus the grade its
expected.json names, as grading/grade_test.cc checks it on the simulator.

    grading/corpus_compare.py OUT_DIR EXPECTED_DIR [--lab LAB]

OUT_DIR is the grader's --out (a folder per student with results.json); EXPECTED_DIR holds
STUDENT.json for each student to check (gpu_bundle.sh writes corpus_NAME.json there). An
expected.json may give a "gpu" object that replaces its "checks" and "report_contains" for
a GPU run, as "sanitized" does for a sanitizer build. Prints a line per case and a summary
line "N passed, N failed"; exits 1 when any case differs.
"""
import argparse
import json
import os
import sys

CHECKS = {"correct": "correct", "race_free": "race-free", "speedup": "speed"}


def for_gpu(expected):
    """The expectations of a GPU run: the "gpu" object's where it gives them."""
    gpu = expected.get("gpu") or {}
    return {key: gpu.get(key, expected.get(key)) for key in ("checks", "report_contains")}


def differences(student, expected, out_dir, lab):
    """What differs between a student's results.json and report.txt and its expectations."""
    folder = os.path.join(out_dir, student)
    try:
        with open(os.path.join(folder, "results.json"), encoding="utf-8") as f:
            results = json.load(f)
        with open(os.path.join(folder, "report.txt"), encoding="utf-8") as f:
            report = f.read()
    except (OSError, ValueError) as e:
        return [f"no readable results: {e}"]
    tests = {t.get("name"): t for t in results.get("tests", [])}
    want = for_gpu(expected)
    found = []
    for check, words in CHECKS.items():
        w = (want.get("checks") or {}).get(check)
        if w is None:
            found.append(f"expected.json has no {check}")
            continue
        t = tests.get(f"{lab}: {words}")
        if t is None:
            found.append(f"results.json has no test '{lab}: {words}'")
            continue
        score, top = t.get("score", -1), t.get("max_score", -1)
        if w["points"] == "full" and score != top:
            found.append(f"{check}: {score}/{top}, expected full points: {t.get('output', '')[:200]!r}")
        if w["points"] == "none" and score != 0:
            found.append(f"{check}: {score}/{top}, expected none: {t.get('output', '')[:200]!r}")
        if w.get("reason", "") not in t.get("output", ""):
            found.append(f"{check}: the reason lacks {w['reason']!r}: {t.get('output', '')[:200]!r}")
    for text in want.get("report_contains") or []:
        if text not in report:
            found.append(f"report.txt lacks {text!r}")
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out_dir")
    p.add_argument("expected_dir")
    p.add_argument("--lab", default="03_double_buffer")
    a = p.parse_args()
    names = sorted(n[:-5] for n in os.listdir(a.expected_dir) if n.endswith(".json"))
    if not names:
        print(f"corpus_compare: no STUDENT.json in {a.expected_dir}", file=sys.stderr)
        return 2
    passed = failed = 0
    for name in names:
        with open(os.path.join(a.expected_dir, name + ".json"), encoding="utf-8") as f:
            expected = json.load(f)
        found = differences(name, expected, a.out_dir, a.lab)
        if found:
            failed += 1
            print(f"DIFFERS {name}")
            for d in found:
                print(f"    {d}")
        else:
            passed += 1
            print(f"same    {name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
