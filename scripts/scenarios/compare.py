#!/usr/bin/env python3
"""Merges two bench-judge.py --markdown outputs (before, after) into one
markdown table, scenario by scenario, for README's "Scenario benchmark".
Usage: compare.py BEFORE.txt [MORE_BEFORE.txt…] -- AFTER.txt
Later before files override earlier ones (re-runs of single cases)."""
import re
import statistics
import sys


def text_rows(path):
    """The plain table bench-judge.py always prints (columns 2+ spaces apart)."""
    out, on = {}, False
    for ln in open(path):
        if ln.startswith("scenario "):
            on = True
            continue
        if on and not ln.strip():
            break
        if on:
            cells = re.split(r"\s{2,}", ln.rstrip("\n"), maxsplit=6)
            if len(cells) >= 6:
                out[cells[0]] = cells
    return out


def rows(path):
    md = markdown_rows(path)
    return md if md else text_rows(path)


def markdown_rows(path):
    out, on = {}, False
    for ln in open(path):
        if ln.startswith("| scenario |"):
            on = True
            continue
        if on and ln.startswith("|---"):
            continue
        if on and ln.startswith("| "):
            cells = [c.strip() for c in ln.strip().strip("|").split(" | ")]
            out[cells[0]] = cells
        elif on and not ln.strip():
            on = False
    return out


def main():
    args = [a for a in sys.argv[1:] if a != "--totals"]
    cut = args.index("--")
    before = {}
    for p in args[:cut]:
        before.update(rows(p))
    after = rows(args[cut + 1])
    def totals(table, names):
        res = [table[n][5] if n in table else "-" for n in names]
        waits = sorted(float(table[n][4].split(" / ")[0].rstrip("s")) for n in names
                       if n in table and n.endswith("@default") and table[n][1].startswith("input")
                       and not table[n][4].startswith("-"))
        med = f"{statistics.median(waits):.1f} s / {waits[-1]:.1f} s" if waits else "-"
        kinds = [n for n in names if n in table and table[n][1].startswith("input") and table[n][3] != "-"]
        right = sum(1 for n in kinds if "/" in table[n][2] and
                    table[n][1].split(" ")[0].split("/")[1] == table[n][2].rstrip(")").split("/")[-1])
        return (f"{len(names)} runs: {res.count('PASS')} pass, {res.count('FALSE')} false actions, "
                f"{res.count('MISSED')} missed, {res.count('LATE')} late, {res.count('TRIGGER')} by another trigger; "
                f"input from blocking (default timings) median/worst {med}; input kind right {right} of {len(kinds)}")
    names = list(after)
    if "--totals" in sys.argv:
        print("before:", totals(before, names))
        print("after: ", totals(after, names))
        return
    print("| scenario | expected | before | before: block / start | | after | after: block / start | |")
    print("|---|---|---|---|---|---|---|---|")
    for name, a in after.items():
        b = before.get(name)
        bcols = [b[2], b[4], b[5]] if b else ["(not in the corpus then)", "", ""]
        print(f"| {name} | {a[1]} | {bcols[0]} | {bcols[1]} | {bcols[2]} | {a[2]} | {a[4]} | {a[5]} |")


if __name__ == "__main__":
    main()
