#!/usr/bin/env python3
"""tools/fidelity_table.py: the simulator against a GPU, variant by variant, as a Markdown
table for docs/measured.md ("Fidelity").

    tools/fidelity_table.py LOGS [--gpu H100] [--seeds 21,22,23] [--sim-cache DIR] [--profile FILE]

LOGS is the logs/ folder of a `kernels/gpu_bundle.sh` bundle run with ONLY=verdict: for
each lab binary NAME_gpu it holds NAME_gpu-verdict-SEED.log, whose last line starting
with "{" is the lab's --json result. For each such binary and seed, the simulator build of
the same program (bazel-bin/labs/..._sim or bazel-bin/solutions/..._sim, after
`bazel build //labs/... //solutions/...`) is run with the same arguments (--json --runs 9
--seed SEED), on its default profile or on --profile (a built-in name or a profile file,
such as the calibrated.json that //sim:calibrate wrote on the same GPU machine);
--sim-cache keeps its results between runs of this tool, per profile. Each row gives,
as medians over the seeds: the baseline's and the program's figure (ms, or the requests'
p99 latency in ms for a lab of requests) on the simulator and on the GPU with the gap
between them, the fraction of the bound each reached and the lab's target (a fraction of
the bound), and the exit status of each (the verdict: 0 pass, 1 below target, 2 wrong or
racy). A last line on stderr counts the programs with both figures within 15% and those
with the same exit status on every seed.

--margins prints, instead, the room each program has on its target (docs/measured.md;
the fidelity issue's "targets with room"): the lowest and highest fraction of the bound
over the seeds on each backend, and the room, the lowest less the target for a program
that passed on every seed, the target less the highest for one below target on every
seed. A program that was wrong (exit 2), whose verdict differs between seeds, or whose
"below target" came with a fraction at or above the target (a verdict the bound did not
decide, as when a run left out the lab's work) has no room to show. The summary counts
the programs with at least 5 points of room on both backends.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def result_of(text):
    """The last --json line of a lab's output, or None."""
    for line in reversed(text.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                return None
    return None


def figures(d):
    """(baseline, yours, fraction of the bound, target fraction) of a result; None where
    absent."""
    if d is None:
        return None, None, None, None
    lat = d.get("latency")
    if isinstance(lat, dict) and lat.get("p99_ms") is not None:
        base, yours = lat.get("baseline_p99_ms"), lat.get("p99_ms")
    else:
        t = d.get("timings") or {}
        base, yours = t.get("baseline_median_ms"), t.get("yours_median_ms")
    return base, yours, d.get("bound_fraction"), d.get("target_bound_fraction")


def sim_binary(gpu_name):
    """bazel-bin path of the simulator build of a bundle's NAME_gpu, or None."""
    m = re.match(r"(labs|solutions)_(.+)_gpu$", gpu_name)
    if not m:
        return None
    path = os.path.join(ROOT, "bazel-bin", m.group(1), m.group(2) + "_sim")
    return path if os.path.exists(path) else None


def run_sim(binary, seed, cache, profile=None):
    """profile: a built-in name or a profile file's absolute path (main resolves it)."""
    where = os.path.basename(os.path.dirname(binary))  # labs or solutions: the same names in both
    tag = "" if not profile else "@" + re.sub(r"[^A-Za-z0-9_.-]", "_", profile)
    key = os.path.join(cache, "%s_%s-%d%s.json" % (where, os.path.basename(binary), seed, tag)) if cache else None
    if key and os.path.exists(key):
        with open(key) as f:
            saved = json.load(f)
        return saved["rc"], saved["result"]
    args = [binary, "--json", "--runs", "9", "--seed", str(seed)]
    if profile:
        args += ["--profile", profile]
    p = subprocess.run(args, capture_output=True, text=True)
    d = result_of(p.stdout)
    if key:
        with open(key, "w") as f:
            json.dump({"rc": p.returncode, "result": d}, f)
    return p.returncode, d


def median(values):
    values = [v for v in values if isinstance(v, (int, float))]
    return statistics.median(values) if values else None


def fmt(v, digits=3):
    return "-" if v is None else ("%.*f" % (digits, v))


def gap(sim, gpu):
    if sim is None or gpu is None or sim == 0:
        return "-"
    return "%+.0f%%" % (100.0 * (gpu / sim - 1))


def close(sim, gpu, within=0.15):
    """Whether the GPU's figure is within 15% of the simulator's; None where either is
    missing or zero (a program that stopped)."""
    if sim is None or gpu is None or sim == 0 or gpu == 0:
        return None
    return abs(gpu / sim - 1) <= within


ROOM = 0.05  # the fidelity issue's margin: 5 points of the bound either side of the target


def room(codes, fractions, target):
    """The room a program has on its target on one backend, from its exit statuses and
    fractions of the bound over the seeds: (room, why). room is None where the bound did
    not decide the verdict; why then says what did."""
    fractions = [f for f in fractions if isinstance(f, (int, float))]
    if target is None or not fractions or len(codes) != 1:
        return None, "verdicts differ between seeds" if len(codes) > 1 else "no figures"
    code = next(iter(codes))
    if code == 0:
        return min(fractions) - target, "passed"
    if code == 1:
        if max(fractions) >= target:
            return None, "below target for another reason"
        return target - max(fractions), "below target"
    return None, "wrong or stopped"


def fractions_range(fractions):
    fractions = [f for f in fractions if isinstance(f, (int, float))]
    return "-" if not fractions else "%.3f-%.3f" % (min(fractions), max(fractions))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs")
    ap.add_argument("--gpu", default="GPU")
    ap.add_argument("--seeds", default="21,22,23")
    ap.add_argument("--sim-cache")
    ap.add_argument("--profile", help="the simulator's profile: a built-in name or a profile file")
    ap.add_argument("--margins", action="store_true", help="the room each program has on its target, not the figures")
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(",")]
    # A file is named by its absolute path (the simulator runs elsewhere; the cache's key).
    profile = os.path.abspath(a.profile) if a.profile and os.path.exists(a.profile) else a.profile
    if a.sim_cache:
        os.makedirs(a.sim_cache, exist_ok=True)
    names = sorted({m.group(1) for f in os.listdir(a.logs) for m in [re.match(r"(.+_gpu)-verdict-\d+\.log$", f)] if m})
    if not names:
        sys.exit("fidelity_table: no NAME_gpu-verdict-SEED.log in %s" % a.logs)
    g = a.gpu
    if a.margins:
        print("| program | exit: sim | %s | of the bound: sim, lowest-highest | %s | target | room: sim | %s |"
              % (g, g, g))
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    else:
        print("| program | baseline: sim | %s | gap | yours: sim | %s | gap | of the bound: sim | %s | target "
              "| exit: sim | %s |" % (g, g, g, g))
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    with_figures = within = verdicts_equal = 0
    decided = roomy = 0
    thin = []
    for name in names:
        binary = sim_binary(name)
        rows_sim, rows_gpu, rc_sim, rc_gpu = [], [], set(), set()
        for seed in seeds:
            log = os.path.join(a.logs, "%s-verdict-%d.log" % (name, seed))
            if not os.path.exists(log):
                continue
            with open(log, errors="replace") as f:
                d = result_of(f.read())
            rows_gpu.append(figures(d))
            rc_gpu.add(d.get("exit_code") if d else "no result")
            if binary:
                rc, s = run_sim(binary, seed, a.sim_cache, profile)
                rows_sim.append(figures(s))
                rc_sim.add(rc)
        cols = []
        for i in range(4):
            cols.append((median(r[i] for r in rows_sim), median(r[i] for r in rows_gpu)))
        program = re.sub(r"_gpu$", "", name).replace("labs_", "").replace("solutions_", "reference ")
        codes = lambda s: "/".join(str(c) for c in sorted(s, key=str)) or "-"
        target = cols[3][1] if cols[3][1] is not None else cols[3][0]
        verdicts_equal += rc_sim == rc_gpu
        if a.margins:
            frac_sim, frac_gpu = [r[2] for r in rows_sim], [r[2] for r in rows_gpu]
            sim_room, sim_why = room(rc_sim, frac_sim, target)
            gpu_room, gpu_why = room(rc_gpu, frac_gpu, target)
            show = lambda r, why: "%+.3f" % r if r is not None else why
            print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                program, codes(rc_sim), codes(rc_gpu), fractions_range(frac_sim), fractions_range(frac_gpu),
                fmt(target, 2), show(sim_room, sim_why), show(gpu_room, gpu_why)))
            if sim_room is not None and gpu_room is not None:
                decided += 1
                if min(sim_room, gpu_room) >= ROOM - 1e-9:
                    roomy += 1
                else:
                    thin.append(program)
            continue
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            program, fmt(cols[0][0]), fmt(cols[0][1]), gap(*cols[0]), fmt(cols[1][0]), fmt(cols[1][1]),
            gap(*cols[1]), fmt(cols[2][0], 2), fmt(cols[2][1], 2), fmt(target, 2), codes(rc_sim), codes(rc_gpu)))
        gaps = [close(*cols[0]), close(*cols[1])]
        if None not in gaps:
            with_figures += 1
            within += all(gaps)
    # The summary, on stderr so that stdout stays the table.
    if a.margins:
        print("fidelity_table: %d of %d programs whose verdict the bound decided on both have %.0f points of room or "
              "more on both%s; %d of %d with the same exit status on every seed"
              % (roomy, decided, 100 * ROOM, " (less: %s)" % ", ".join(thin) if thin else "", verdicts_equal,
                 len(names)), file=sys.stderr)
        return
    print("fidelity_table: %d of %d programs with both figures within 15%% of the %s; %d of %d with the same exit "
          "status on every seed" % (within, with_figures, g, verdicts_equal, len(names)), file=sys.stderr)


if __name__ == "__main__":
    main()
