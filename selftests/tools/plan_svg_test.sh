#!/bin/sh
# ccore-plan's pictures read on their own: a --sweep chart's axes in one
# notation each (no "1e+06" beside "100000"), the tuner's choice marked at
# every size and each crossover the text output names drawn; a --diagram
# with a legend for every kind of step it draws.  Prints TAP.
# Installed as BUILD/tests/tools/plan_svg_test; the tools are in BUILD/bin.
bin=$(cd "$(dirname "$0")/../../bin" && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
tool_test_start

# 1K..1G on 32 ranks: times from tens of us to millions, sizes 1K..1G.
"$bin/ccore-plan" --op allreduce --ranks 32 --sweep --svg "$tmp/sweep.svg" >"$tmp/sweep.txt" 2>&1
result $? "ccore-plan --sweep --svg runs" "$(cat "$tmp/sweep.txt")"
python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])" "$tmp/sweep.svg"
result $? "the chart is well-formed XML"

labels=$(grep -o 'text-anchor="end">[^<]*<' "$tmp/sweep.svg" | sed 's/.*>//; s/<//')
bad=$(printf '%s\n' "$labels" | grep -v -E '^[0-9]+(\.[0-9]+)?[kMGT]?$')
result "$([ -z "$bad" ] && [ -n "$labels" ] && echo 0 || echo 1)" \
	"y axis labels in one notation: $(echo $labels)" "bad labels: $bad"

sizes=$(grep -c '^ *[0-9][0-9]* ' "$tmp/sweep.txt")
dots=$(grep -c "the tuner's choice</title>" "$tmp/sweep.svg")
result "$([ "$sizes" -gt 10 ] && [ "$dots" = "$sizes" ] && echo 0 || echo 1)" \
	"the tuner's choice marked at each of the $sizes sizes" "$dots marks"

want=$(grep '^# crossover at' "$tmp/sweep.txt" | sed 's/^# crossover at \([0-9]*\) bytes: \(.*\)$/\1 \2/')
got=$(grep -o '<title>crossover at [^<]*' "$tmp/sweep.svg" | sed 's/<title>crossover at //')
nwant=$(printf '%s\n' "$want" | grep -c .)
ngot=$(printf '%s\n' "$got" | grep -c .)
result "$([ "$nwant" -ge 2 ] && [ "$nwant" = "$ngot" ] && echo 0 || echo 1)" \
	"the chart draws the $nwant crossovers the table names" "table: $want; chart: $got"
# each drawn crossover goes to the algorithm the table names
ok=0
printf '%s\n' "$want" | while read -r bytes change; do
	to=${change##*-> }
	grep -q "<title>crossover at [^<]*-> $to<" "$tmp/sweep.svg" || exit 1
done || ok=1
result $ok "each crossover in the chart goes to the algorithm the table names"
grep -q "the tuner's choice</text>" "$tmp/sweep.svg" && grep -q '>crossover</text>' "$tmp/sweep.svg"
result $? "the chart's legend explains the marks and the dashed lines"

# The diagram: every colour a dot has is in the legend, named.
"$bin/ccore-plan" --op reducescatter --ranks 4 --size 64K --algo ring --diagram "$tmp/d.svg" >/dev/null 2>&1
result $? "ccore-plan --diagram runs"
used=$(grep -o '<circle [^>]*fill="#[0-9a-f]*"><title>' "$tmp/d.svg" | grep -o '#[0-9a-f]*' | sort -u)
missing=
for c in $used; do
	grep -q "<circle [^>]*fill=\"$c\"/>" "$tmp/d.svg" || missing="$missing $c"
done
result "$([ -n "$used" ] && [ -z "$missing" ] && echo 0 || echo 1)" \
	"every dot colour of the diagram ($(echo $used)) is in its legend" "missing:$missing"
for op in send recv recv-reduce; do
	grep -q ">$op</text>" "$tmp/d.svg"
	result $? "the diagram's legend names '$op'"
done
grep -q '>a transfer, send to receive</text>' "$tmp/d.svg"
result $? "the diagram's legend explains the arrows"

done_testing
