#!/bin/sh
# ccore-bench read the way scripts written for nccl-tests read it: a parser
# written to nccl-tests' table (columns by position, '#' lines skipped, the
# "Out of bounds values" and "Avg bus bandwidth" lines) and to its JSON
# (-J, version 3) reads every collective's output, checked and unchecked,
# and the values must make sense: size and count as nccl-tests defines them,
# algbw = size / time, busbw = algbw x nccl-tests' factor, #wrong 0 or N/A.
# ccore's --json is read back too.  Prints TAP.
# Installed as BUILD/tests/tools/nccl_tests_compat_test; the tools are in BUILD/bin.
bin=$(cd "$(dirname "$0")/../../bin" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CCORE_BENCH="$bin/ccore-bench" TMPDIR="$tmp"
# a string every JSON writer must escape: quote, backslash, tab, a control
# character, non-ASCII
export NCCL_COMPAT_PROBE="$(printf 'q"uote b\\ack\ttab \001ctl \303\251')"
exec python3 - <<'EOF'
import json, math, os, subprocess, sys

bench = os.environ["CCORE_BENCH"]
tmp = os.environ["TMPDIR"]
n = 0
failed = 0

def ok(passed, what, detail=""):
    global n, failed
    n += 1
    print(("ok %d " if passed else "not ok %d ") % n + what)
    if not passed:
        failed += 1
        for line in str(detail).splitlines()[:40]:
            print("# " + line)

# nccl-tests' definitions (src/*.cu there): the count of the call for a
# size, the size it prints, its bus-bandwidth factor
ES = {"int8": 1, "uint8": 1, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8,
      "half": 2, "float": 4, "double": 8, "bfloat16": 2}
PER_RANK = ("allgather", "reducescatter", "alltoall")

def expect_count(coll, nbytes, es, ranks):
    elems = nbytes // es
    if coll in PER_RANK:
        return (elems // ranks) & ~(16 // es - 1)
    return elems

def expect_size(coll, count, es, ranks):
    return count * es * (ranks if coll in PER_RANK else 1)

def factor(coll, ranks):
    if coll == "allreduce":
        return 2.0 * (ranks - 1) / ranks
    if coll in PER_RANK:
        return (ranks - 1) / ranks
    return 1.0

PROGRAM = {"allreduce": "all_reduce_perf", "allgather": "all_gather_perf",
           "reducescatter": "reduce_scatter_perf", "alltoall": "alltoall_perf",
           "broadcast": "broadcast_perf", "reduce": "reduce_perf",
           "sendrecv": "sendrecv_perf"}

def parse_table(text):
    """As an nccl-tests script does: rows by position, '#' lines apart."""
    rows, summary = [], {}
    for line in text.splitlines():
        if line.startswith("#"):
            if ":" in line:
                key, _, val = line[1:].partition(":")
                summary[key.strip()] = val.strip()
            continue
        f = line.split()
        if len(f) < 13:
            continue
        rows.append({"size": int(f[0]), "count": int(f[1]), "type": f[2], "redop": f[3],
                     "root": int(f[4]),
                     "oop": (f[5], f[6], f[7], f[8]), "ip": (f[9], f[10], f[11], f[12]),
                     "algo": f[13] if len(f) > 13 else None})
    return rows, summary

def near(a, b, rel=0.02, absolute=0.011):
    return abs(a - b) <= absolute + rel * abs(b)

def check_half(coll, ranks, row, half, checked):
    t, algbw, busbw, wrong = row[half]
    if coll == "sendrecv" and half == "ip":
        return (t, algbw, busbw, wrong) == ("N/A",) * 4 or "in-place sendrecv not N/A"
    t, algbw, busbw = float(t), float(algbw), float(busbw)
    if not t > 0:
        return "time %s" % t
    # the table rounds time to 2 decimals and GB/s to 2
    if not near(algbw, row["size"] / t / 1e3):
        return "algbw %s, size/time %s" % (algbw, row["size"] / t / 1e3)
    if not near(busbw, algbw * factor(coll, ranks)):
        return "busbw %s, algbw x factor %s" % (busbw, algbw * factor(coll, ranks))
    if checked and wrong != "0":
        return "#wrong %r, want 0" % wrong
    if not checked and wrong != "N/A":
        return "#wrong %r, want N/A" % wrong
    return True

def run(coll, ranks, extra, checked, dtype="float", root=0):
    tag = "%s-%d-%s" % (coll, ranks, "c" if checked else "nc")
    jpath = os.path.join(tmp, tag + ".json")
    cpath = os.path.join(tmp, tag + ".ccore.json")
    args = [bench, "--op", coll, "-g", str(ranks), "-b", "1K", "-e", "64K", "-f", "4",
            "-n", "2", "-w", "1", "-d", dtype, "-r", str(root), "-J", jpath,
            "--json", cpath] + extra
    p = subprocess.run(args, capture_output=True, text=True)
    what = "%s on %d ranks, %s" % (coll, ranks, "checked" if checked else "not checked (%s)" % " ".join(extra))
    if p.returncode:
        ok(False, what + ": ran", p.stdout + p.stderr)
        return
    rows, summary = parse_table(p.stdout)
    es = ES[dtype]
    sizes = [1024, 4096, 16384, 65536]
    problems = []
    if len(rows) != len(sizes):
        problems.append("%d rows, want %d" % (len(rows), len(sizes)))
    for row, nbytes in zip(rows, sizes):
        count = expect_count(coll, nbytes, es, ranks)
        if row["count"] != count:
            problems.append("%d B: count %d, nccl-tests' %d" % (nbytes, row["count"], count))
        if row["size"] != expect_size(coll, count, es, ranks):
            problems.append("%d B: size %d, want %d" % (nbytes, row["size"],
                            expect_size(coll, count, es, ranks)))
        if row["type"] != dtype:
            problems.append("type %s" % row["type"])
        want_redop = "sum" if coll in ("allreduce", "reducescatter", "reduce") else "none"
        if row["redop"] != want_redop:
            problems.append("redop %s, want %s" % (row["redop"], want_redop))
        want_root = root if coll in ("broadcast", "reduce") else -1
        if row["root"] != want_root:
            problems.append("root %d, want %d" % (row["root"], want_root))
        for half in ("oop", "ip"):
            r = check_half(coll, ranks, row, half, checked)
            if r is not True:
                problems.append("%d B %s: %s" % (nbytes, half, r))
    oob = summary.get("Out of bounds values", "")
    if checked and oob != "0 OK":
        problems.append("Out of bounds values: %r" % oob)
    if not checked and not oob.startswith("N/A"):
        problems.append("Out of bounds values: %r, want N/A" % oob)
    avg = summary.get("Avg bus bandwidth", "x").split()
    busbws = [float(r[h][2]) for r in rows for h in ("oop", "ip") if r[h][2] != "N/A"]
    if not avg or not busbws or not near(float(avg[0]), sum(busbws) / len(busbws), 0.02, 0.02):
        problems.append("Avg bus bandwidth %r, mean of busbw %s" % (avg, busbws))
    if summary.get("Collective test concluded") != PROGRAM[coll]:
        problems.append("no '# Collective test concluded: %s'" % PROGRAM[coll])
    ok(not problems, what + ": the table as nccl-tests scripts read it",
       "\n".join(problems) + "\n" + p.stdout)

    # -J: nccl-tests' JSON
    problems = []
    try:
        with open(jpath, encoding="utf-8") as f:
            d = json.load(f)
    except Exception as e:
        ok(False, what + ": -J is JSON", e)
        return
    if d.get("version") != 3:
        problems.append("version %r" % d.get("version"))
    cfg = d.get("config", {})
    if cfg.get("ngpus") != ranks or cfg.get("minimum_bytes") != 1024 or cfg.get("maximum_bytes") != 65536:
        problems.append("config %r" % {k: cfg.get(k) for k in ("ngpus", "minimum_bytes", "maximum_bytes")})
    if len(cfg.get("devices", [])) != ranks:
        problems.append("%d devices" % len(cfg.get("devices", [])))
    if os.environ["NCCL_COMPAT_PROBE"] not in ["=".join(e.split("=", 1)[1:]) for e in d.get("env", [])]:
        problems.append("the environment's escaped string did not come back")
    res = d.get("results", [])
    if len(res) != len(rows):
        problems.append("%d results, %d rows" % (len(res), len(rows)))
    for r, row in zip(res, rows):
        for k in ("size", "count", "type", "redop"):
            if r.get(k) != row[k]:
                problems.append("%s: %r in JSON, %r in the table" % (k, r.get(k), row[k]))
        if int(r.get("root", "x")) != row["root"]:
            problems.append("root %r" % r.get("root"))
        for key, half in (("out_of_place", "oop"), ("in_place", "ip")):
            h = r.get(key)
            if row[half][0] == "N/A":
                if h is not None:
                    problems.append("%s: %r, want null" % (key, h))
                continue
            if not near(h["time"], float(row[half][0]), 0.01, 0.006):
                problems.append("%s time %r, table %s" % (key, h["time"], row[half][0]))
            if not near(h["alg_bw"], h and row["size"] / h["time"] / 1e3, 1e-4, 1e-6):
                problems.append("%s alg_bw %r" % (key, h["alg_bw"]))
            if not near(h["bus_bw"], h["alg_bw"] * factor(coll, ranks), 1e-4, 1e-6):
                problems.append("%s bus_bw %r" % (key, h["bus_bw"]))
            if (h["nwrong"] != 0) if checked else (h["nwrong"] is not None):
                problems.append("%s nwrong %r" % (key, h["nwrong"]))
    oob = d.get("out_of_bounds", {})
    if checked and (oob.get("count") != 0 or oob.get("okay") != "true"):
        problems.append("out_of_bounds %r" % oob)
    if not checked and (oob.get("count") is not None or oob.get("okay") != "unchecked"):
        problems.append("out_of_bounds %r" % oob)
    abw = d.get("average_bus_bandwidth", {}).get("bandwidth")
    if abw is None or not near(abw, float(avg[0]), 1e-4, 1e-5):
        problems.append("average_bus_bandwidth %r, table %r" % (abw, avg))
    if d.get("errors") != [] or "end_time" not in d:
        problems.append("errors %r, end_time %r" % (d.get("errors"), d.get("end_time")))
    ok(not problems, what + ": -J as nccl-tests' JSON", "\n".join(problems))

    # --json: ccore's rows, one per size and half
    try:
        with open(cpath, encoding="utf-8") as f:
            c = json.load(f)
        halves = sum(1 for r in rows for h in ("oop", "ip") if r[h][0] != "N/A")
        good = (c["op"] == coll and len(c["rows"]) == halves and
                all((x["wrong"] == 0) if checked else (x["wrong"] is None) for x in c["rows"]) and
                [x["count"] for x in c["rows"]][::2 if coll != "sendrecv" else 1] == [r["count"] for r in rows])
        ok(good, what + ": --json", json.dumps(c)[:2000])
    except Exception as e:
        ok(False, what + ": --json is JSON", e)

print("TAP version 13")
for coll in ("allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce",
             "sendrecv"):
    run(coll, 4, [], True, root=1)
    run(coll, 4, ["-c", "0"], False, root=1)
# another rank count and type: counts rounded to 16 bytes per rank
run("allgather", 8, [], True, dtype="half")
run("alltoall", 8, [], True, dtype="double")
run("reducescatter", 8, [], True, dtype="int8")
# the timed model: virtual buffers, nothing checked
run("allreduce", 8, ["--timed"], False)

# -J's argument list comes back whole, escapes and all
odd = os.path.join(tmp, 'a "quoted" \\ name.json')
p = subprocess.run([bench, "-g", "2", "-b", "8", "-e", "8", "-n", "1", "-w", "0", "-J", odd],
                   capture_output=True, text=True)
try:
    with open(odd, encoding="utf-8") as f:
        d = json.load(f)
    ok(p.returncode == 0 and d["args"][-1] == odd and
       "# Writing JSON output to %s" % odd in p.stdout,
       "-J: a file name with a quote and a backslash, in args, read back whole")
except Exception as e:
    ok(False, "-J: a file name with a quote and a backslash", "%s\n%s" % (e, p.stdout + p.stderr))
# as nccl-tests: an existing file is kept, the output goes to FILE.0
p = subprocess.run([bench, "-g", "2", "-b", "8", "-e", "8", "-n", "1", "-w", "0", "-J", odd],
                   capture_output=True, text=True)
ok(p.returncode == 0 and os.path.exists(odd + ".0") and
   "# Writing JSON output to %s.0" % odd in p.stdout,
   "-J: an existing file is kept; the output goes to FILE.0, as nccl-tests does",
   p.stdout + p.stderr)

print("1..%d" % n)
sys.exit(1 if failed else 0)
EOF
