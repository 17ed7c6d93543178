#!/bin/sh
# Every tool's --json read by a real JSON parser (python3's): ccore-info,
# ccore-plan (one size, a sweep, a failed timed run whose message quotes
# its configuration), ccore-bench --exec.  ccore-bench's table, -J and
# --json: nccl_tests_compat_test; the writer's escapes: json_test;
# ccore-info --netlink/--watch --json: selftests/driver/genl_test.sh in the
# QEMU guest (it needs ccore.ko).  Prints TAP.
# Installed as BUILD/tests/tools/json_tools_test; the tools are in BUILD/bin.
bin=$(cd "$(dirname "$0")/../../bin" && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
tool_test_start examples/tp_fsdp.txt

# parses WHAT PYTHON-CHECK -- COMMAND...: COMMAND's stdout is JSON, and the
# check (on it as `d`) holds
parses() {
	what=$1 check=$2
	shift 3
	if "$@" >"$tmp/out.json" 2>"$tmp/err" &&
	   python3 -c "import json, sys
d = json.load(open(sys.argv[1], encoding='utf-8'))
assert $check, d" "$tmp/out.json" 2>"$tmp/py"; then
		ok "$what"
	else
		not_ok "$what" "$(head -20 "$tmp/err" "$tmp/py")" "$(head -c 1500 "$tmp/out.json")"
	fi
}

parses "ccore-info --json" \
	"d['backend'] == 'sim' and len(d['devices']) >= 1 and d['streams']['streams'] == 2 and d['streams']['cc_cores'][0]['spare'] is False" \
	-- env CCORE_STREAMS=2 "$bin/ccore-info" --json --sim cc_cores=4
parses "ccore-plan --json: UTF-8 through (the ideal topology's alpha and micro signs)" \
	"d['topology'] == 'ideal: 8 ranks, one tier, \u03b1 1 \u00b5s, 1 GB/s' and d['chosen'] and all(isinstance(a['applies'], bool) for a in d['algorithms'])" \
	-- "$bin/ccore-plan" --op allreduce --ranks 8 --size 8M --ideal --alpha-us 1 --bw-gbps 1 --json
parses "ccore-plan --json: an algorithm that does not apply says why" \
	"any(not a['applies'] and a['why'] for a in d['algorithms'])" \
	-- "$bin/ccore-plan" --op allreduce --ranks 6 --size 1K --json
parses "ccore-plan --json: a failed timed run's message, quotes and all, and timed_us null" \
	"d['algorithms'][0]['timed_us'] is None and 'sim configuration \"nodes=1,' in d['algorithms'][0]['timed_why']" \
	-- env CCORE_SIM=hbm=1G,torus=2x1 "$bin/ccore-plan" --op allreduce --ranks 8 --topology torus=8x1 --size 1K --algo ring --json
parses "ccore-plan --sweep --json" \
	"[s['size'] for s in d['sizes']] == [1024, 2048, 4096] and all(s['chosen'] for s in d['sizes'])" \
	-- "$bin/ccore-plan" --op allgather --ranks 8 --sweep --min 1K --max 4K --json
"$bin/ccore-exe" build "$root/examples/tp_fsdp.txt" -o "$tmp/tp.cce" >/dev/null 2>&1
if "$bin/ccore-bench" --exec "$tmp/tp.cce" -n 1 -w 0 --json "$tmp/exec.json" >/dev/null 2>&1 &&
   python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
assert d['timed'] is False and d['tp_latency_us'] is None and d['collectives'] and all(c['latency_us'] is None and c['name'] for c in d['collectives']), d" "$tmp/exec.json"; then
	ok "ccore-bench --exec --json: null latencies off the timed model"
else
	not_ok "ccore-bench --exec --json"
fi
done_testing
