#!/bin/bash
# What a reader of the README and `make help` trips on, checked by make check:
#   - `make help` prints the Makefile's whole header comment, ending in a
#     full sentence (it once stopped mid-sentence at a fixed line count);
#   - every Markdown table row in *.md sits in a table: right after the
#     header's `|---|` line or another row (a row after prose renders as
#     text);
#   - the README names no internal issue numbers (readers have no tracker).
# Prints what is wrong and exits 1, or exits 0 quietly.
#
# Usage: scripts/docs-lint.sh
set -uo pipefail

case "${1:-}" in
-h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "docs-lint.sh: unexpected argument '$1' (it takes none; --help)" >&2; exit 2 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
rc=0

help=$(make --no-print-directory help)
header=$(awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' Makefile)
if [ "$help" != "$header" ]; then
	echo "make help does not print the Makefile's whole header comment"
	diff <(printf '%s\n' "$header") <(printf '%s\n' "$help") | sed 's/^/  /'
	rc=1
fi
last=$(printf '%s\n' "$help" | sed '/^ *$/d' | tail -1)
case "$last" in
*.) ;;
*) echo "make help ends mid-sentence: '$last'"; rc=1 ;;
esac

# A row is a line starting with '|'; it must follow a row or a header's
# separator line (both also start with '|'), or be a header: a row followed
# by a separator.  Fenced code blocks are skipped.
for f in *.md Documentation/*.md; do
	[ -f "$f" ] || continue
	awk -v f="$f" '
		/^```/ { fence = !fence; prev = ""; next }
		fence { next }
		{ lines[NR] = $0 }
		END {
			for (i = 1; i <= NR; i++) {
				if (lines[i] !~ /^\|/)
					continue
				if (i > 1 && lines[i - 1] ~ /^\|/)
					continue
				if (lines[i + 1] ~ /^\|[ :-]*-[ :|-]*$/)
					continue
				printf "%s:%d: a table row outside a table: %.60s\n", f, i, lines[i]
				bad = 1
			}
			exit bad
		}' "$f" || rc=1
done

if grep -n -i -E '\bissues? #?[0-9]+' README.md; then
	echo "README.md names internal issue numbers (above); say what the work is instead"
	rc=1
fi
exit $rc
