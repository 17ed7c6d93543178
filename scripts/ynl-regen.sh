#!/bin/bash
# Generate the "ccore" generic netlink family's C code from its YNL spec,
# Documentation/netlink/ccore.yaml, with the kernel's own generator
# (tools/net/ynl/ynl-gen-c.py of the linux-source-6.12 package):
#
#   uapi/linux/ccore_genl.h    the uAPI header (YNL's, plus kernel-doc for
#                              the attribute and command enums, taken from
#                              the spec's doc strings)
#   driver/ccore_genl_gen.h    policies, ops table and family, as YNL
#   driver/ccore_genl_gen.c    generates them for an in-tree family
#
# Usage: scripts/ynl-regen.sh [--check]
#
#   --check     regenerate into a scratch directory and fail if any of the
#               three files differs from what is committed
#
# Needs /usr/src/linux-source-6.12.tar.xz (scripts/kernel-deps.sh installs
# it) and python3 with the yaml and jsonschema modules (Debian:
# python3-yaml python3-jsonschema): the spec is validated against the
# kernel's genetlink schema first.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tarball=/usr/src/linux-source-6.12.tar.xz
spec=$root/Documentation/netlink/ccore.yaml
check=0
case "${1:-}" in
--check) check=1 ;;
"") ;;
-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
*) echo "ynl-regen.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
esac

ynl=$root/build/linux-src
gen_py=$ynl/tools/net/ynl/ynl-gen-c.py
schema=$ynl/Documentation/netlink/genetlink.yaml
if [ ! -f "$gen_py" ] || [ ! -f "$schema" ]; then
	[ -r "$tarball" ] || {
		echo "ynl-regen.sh: $tarball is missing (run scripts/kernel-deps.sh)" >&2
		exit 1
	}
	mkdir -p "$ynl"
	tar -xJf "$tarball" -C "$ynl" --strip-components=1 \
		linux-source-6.12/tools/net/ynl linux-source-6.12/Documentation/netlink/genetlink.yaml
fi
# Debian's python (python3-yaml, python3-jsonschema) if it has the modules,
# else the first python3 on PATH.
py=python3
/usr/bin/python3 -c 'import yaml, jsonschema' 2>/dev/null && py=/usr/bin/python3
"$py" -c 'import yaml, jsonschema' 2>/dev/null || {
	echo "ynl-regen.sh: python3 needs the yaml and jsonschema modules (python3-yaml python3-jsonschema)" >&2
	exit 1
}

# ynl-gen-c.py takes the schema from two directories above the spec and
# names the spec relative to the nearest directory holding MAINTAINERS:
# give it a tree of that shape.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Documentation/netlink" "$work/out"
touch "$work/MAINTAINERS"
cp "$spec" "$work/Documentation/netlink/ccore.yaml"
cp "$schema" "$work/Documentation/genetlink.yaml"
gen() { "$py" "$gen_py" --spec "$work/Documentation/netlink/ccore.yaml" "$@"; }

gen --mode uapi --header -o "$work/out/ccore_genl.h.ynl"
gen --mode kernel --header -o "$work/out/ccore_genl_gen.h"
gen --mode kernel --source -o "$work/out/ccore_genl_gen.c"

# Kernel-doc for the enums YNL leaves bare: "enum NAME {" of an attribute
# set or of the commands gets a comment built from the spec's docs.
"$py" - "$work/Documentation/netlink/ccore.yaml" "$work/out/ccore_genl.h.ynl" \
	"$work/out/ccore_genl.h" <<'PY'
import sys
import textwrap
import yaml

spec_path, src, dst = sys.argv[1:]
spec = yaml.safe_load(open(spec_path))
fam = spec['name']


def c_upper(s):
    return s.upper().replace('-', '_')


def c_lower(s):
    return s.lower().replace('-', '_')


def wrap(text, first):
    """One kernel-doc entry, wrapped to 80 columns with a hanging indent."""
    words = ' '.join(text.split())
    lines = textwrap.wrap(first + words, width=78, initial_indent=' * ',
                          subsequent_indent=' *   ', break_long_words=False,
                          break_on_hyphens=False)
    return lines


# uint is a u32 or a u64, by the attribute's length (nla_put_uint)
TYPES = {'uint': 'u32 or u64 by length'}
docs = {}
for aset in spec['attribute-sets']:
    prefix = aset.get('name-prefix', f"{fam}-a-{aset['name']}-")
    name = c_lower(aset.get('enum-name', ''))
    if not name:
        continue
    out = ['/**'] + wrap(aset.get('doc', ''), f'enum {name} - ')
    for attr in aset['attributes']:
        ident = c_upper(prefix + attr['name'])
        kind = TYPES.get(attr['type'], attr['type'])
        out += wrap(f'({kind}) ' + attr.get('doc', ''), f'@{ident}: ')
    upper = c_upper(prefix)
    out += wrap('One past the last attribute.', f'@__{upper}MAX: ')
    out += wrap('The last attribute.', f'@{upper}MAX: ')
    out.append(' */')
    docs[f'enum {name} {{'] = out

ops = spec['operations']
name = c_lower(ops.get('enum-name', ''))
if name:
    prefix = ops.get('name-prefix', f'{fam}-cmd-')
    out = ['/**'] + wrap(f'Commands and notifications of the {fam} family.',
                         f'enum {name} - ')
    for op in ops['list']:
        doc = op.get('doc', '')
        if 'event' in op or 'notify' in op:
            doc += f" Notification to multicast group {op['mcgrp']}."
        out += wrap(doc, f"@{c_upper(prefix + op['name'])}: ")
    upper = c_upper(prefix)
    out += wrap('One past the last command.', f'@__{upper}MAX: ')
    out += wrap('The last command.', f'@{upper}MAX: ')
    out.append(' */')
    docs[f'enum {name} {{'] = out

res = []
for line in open(src).read().split('\n'):
    if line in docs:
        res += docs.pop(line)
    res.append(line)
if docs:
    sys.exit(f'ynl-regen.sh: no enum for the kernel-doc of {", ".join(docs)}')
open(dst, 'w').write('\n'.join(res))
PY

declare -A dest=(
	[ccore_genl.h]=$root/uapi/linux/ccore_genl.h
	[ccore_genl_gen.h]=$root/driver/ccore_genl_gen.h
	[ccore_genl_gen.c]=$root/driver/ccore_genl_gen.c
)
rc=0
for f in ccore_genl.h ccore_genl_gen.h ccore_genl_gen.c; do
	if [ "$check" = 1 ]; then
		if ! diff -u "${dest[$f]}" "$work/out/$f"; then
			echo "ynl-regen.sh: ${dest[$f]#"$root"/} is not what the spec generates" >&2
			rc=1
		fi
	elif ! cmp -s "$work/out/$f" "${dest[$f]}"; then
		mkdir -p "$(dirname "${dest[$f]}")"
		cp "$work/out/$f" "${dest[$f]}"
		echo "ynl-regen.sh: wrote ${dest[$f]#"$root"/}"
	fi
done
[ "$check" = 0 ] || [ "$rc" -ne 0 ] || echo "ynl-regen.sh: generated files are up to date"
exit "$rc"
