#!/bin/bash
# Boot Debian's 6.12 kernel in QEMU (TCG) with a busybox initramfs holding our
# kernel modules, firmware and kernel selftests; run the tests in the guest
# and report them as TAP, ending with "N passed, N failed, N skipped".
#
# Usage: selftests/qemu/run.sh [OPTIONS]
#
#   --kver RELEASE      kernel to boot (default: the release our modules were
#                       built for, else the newest installed 6.12 image)
#   --tests DIR         test executables (default: build/tests/kernel)
#   --modules DIR       our kernel modules, *.ko (default: build/driver)
#   --setup FILE        guest setup script (default: selftests/qemu/setup.sh)
#   --test NAME[,NAME]  run only these test binaries (basename or path below
#                       DIR; also CCORE_QEMU_TEST)
#   --test-args ARGS    arguments for every test binary, split on blanks,
#                       e.g. "-r fixture.case" for one kselftest case (also
#                       CCORE_QEMU_TEST_ARGS)
#   --extra-append STR  more kernel command line (e.g. "loglevel=7")
#   --timeout SECS      whole QEMU run (default 600, CCORE_QEMU_TIMEOUT)
#   --test-timeout SECS one test binary in the guest (default 120,
#                       CCORE_QEMU_TEST_TIMEOUT; a test's TEST.timeout file
#                       beside it may raise its own)
#   --no-unload         do not rmmod our modules after the tests
#   --out DIR           work directory (default: build/qemu)
#   --keep              keep the initramfs tree and image in the work
#                       directory (the console log is always kept there)
#   -v, --verbose       stream the guest console while it runs
#   -h, --help          this text
#
# Inputs (all optional but the kernel): build/driver/*.ko, build/firmware/
# (-> /lib/firmware/), build/tests/kernel/ (every executable outside helpers/ is a test),
# selftests/qemu/modules.list (our modules in load order, "name [params]"),
# selftests/qemu/setup.sh (run in the guest after loading, before tests).
# The guest console is saved in build/qemu/console.log.
#
# Exit status: 0 when no case failed and at least one passed, the guest
# reached the end and dmesg is clean; 1 otherwise; 2 for bad usage or
# missing inputs.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
here="$top/selftests/qemu"
build="$top/build"
work="$build/qemu"

kver=""
tests_dir="$build/tests/kernel"
driver_dir="$build/driver"
firmware_dir="$build/firmware"
setup="$here/setup.sh"
only="${CCORE_QEMU_TEST:-}"
test_args="${CCORE_QEMU_TEST_ARGS:-}"
extra_append=""
total_timeout="${CCORE_QEMU_TIMEOUT:-600}"
test_timeout="${CCORE_QEMU_TEST_TIMEOUT:-120}"
unload=1
keep=0
verbose=0

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "qemu-run: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case "$1" in
	--kver) kver=${2:?--kver needs a release}; shift ;;
	--tests) tests_dir=${2:?--tests needs a directory}; shift ;;
	--modules) driver_dir=${2:?--modules needs a directory}; shift ;;
	--setup) setup=${2:?--setup needs a file}; shift ;;
	--test) only=${2:?--test needs a name}; shift ;;
	--test-args) test_args=${2?--test-args needs arguments}; shift ;;
	--extra-append) extra_append=${2?--extra-append needs a string}; shift ;;
	--timeout) total_timeout=${2:?--timeout needs seconds}; shift ;;
	--test-timeout) test_timeout=${2:?--test-timeout needs seconds}; shift ;;
	--no-unload) unload=0 ;;
	--out) work=${2:?--out needs a directory}; shift ;;
	--keep) keep=1 ;;
	-v | --verbose) verbose=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown option '$1'" ;;
	esac
	shift
done
for n in "$total_timeout" "$test_timeout"; do
	[[ "$n" =~ ^[1-9][0-9]*$ ]] || die "timeouts are whole seconds, not '$n'"
done
tests_dir=$(realpath -m "$tests_dir")
work=$(realpath -m "$work")
console_log="$work/console.log"

# --- which kernel -----------------------------------------------------------

# Our modules load only into the release they were built for, so that one is
# the default; --kver against a different build is an error, not a surprise
# "Invalid module format" in the guest.
shopt -s nullglob
our_kos=("$driver_dir"/*.ko "$driver_dir"/*.ko.xz "$driver_dir"/*.ko.zst "$driver_dir"/*.ko.gz)
shopt -u nullglob
built_for=""
for ko in "${our_kos[@]}"; do
	v=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
	[ -z "$built_for" ] || [ "$v" = "$built_for" ] ||
		die "modules in $driver_dir are built for different kernels ($built_for, $v)"
	built_for=$v
done
if [ -z "$kver" ]; then
	kver=${built_for:-$("$top/scripts/kernel-deps.sh" --print-kver)} ||
		die "no 6.12 kernel installed: run scripts/kernel-deps.sh"
fi
[ -z "$built_for" ] || [ "$built_for" = "$kver" ] ||
	die "modules in $driver_dir are built for $built_for, not $kver"
vmlinuz=/boot/vmlinuz-$kver
moddir=/lib/modules/$kver
[ -r "$vmlinuz" ] || die "cannot read $vmlinuz (is linux-image-$kver installed?)"
[ -r "$moddir/modules.dep" ] || die "no $moddir/modules.dep"

# --- module load order ------------------------------------------------------

# Module names treat '-' and '_' alike; modules.dep keys are file paths.
# Sets $mod rather than printing it: a subshell per line of modules.dep
# would cost seconds.
norm() { mod=${1##*/}; mod=${mod%%.ko*}; mod=${mod//-/_}; }

declare -A dep_path dep_deps builtin ours_path ours_deps
while IFS=: read -r path deps; do
	norm "$path"
	dep_path[$mod]=$path
	dep_deps[$mod]=$deps
done <"$moddir/modules.dep"
while read -r path; do norm "$path"; builtin[$mod]=1; done <"$moddir/modules.builtin"

for ko in "${our_kos[@]}"; do
	n=$(modinfo -F name "$ko")
	ours_path[$n]=$ko
	ours_deps[$n]=$(modinfo -F depends "$ko" | tr ',' ' ')
done

# Which of ours to load, in which order, with which parameters.
declare -a load_ours=()
declare -A params
if [ -f "$here/modules.list" ]; then
	while read -r n p; do
		case "$n" in '' | '#'*) continue ;; esac
		n=${n//-/_}
		[ -n "${ours_path[$n]:-}" ] || die "modules.list names $n, not built in $driver_dir"
		load_ours+=("$n")
		params[$n]=$p
	done <"$here/modules.list"
else
	# Dependency order among our own modules (ccore before a module using it).
	declare -A placed=()
	place_ours() {
		local d
		[ -z "${placed[$1]:-}" ] || return 0
		placed[$1]=1
		for d in ${ours_deps[$1]}; do
			[ -z "${ours_path[$d]:-}" ] || place_ours "$d"
		done
		load_ours+=("$1")
	}
	for n in $(printf '%s\n' "${!ours_path[@]}" | sort); do place_ours "$n"; done
fi

# Kernel modules ours need, dependencies before dependents. modules.dep
# already lists each module's full closure; the recursion only orders it.
declare -a load_deps=()
declare -A seen=()
place_dep() {
	local n=$1 d
	[ -z "${seen[$n]:-}" ] || return 0
	seen[$n]=1
	[ -z "${builtin[$n]:-}" ] || return 0
	[ -n "${dep_path[$n]:-}" ] || die "module $n (needed by $2) is not in $moddir"
	for d in ${dep_deps[$n]}; do norm "$d"; place_dep "$mod" "$n"; done
	load_deps+=("$n")
}
for n in "${load_ours[@]}"; do
	for d in ${ours_deps[$n]}; do
		[ -n "${ours_path[$d]:-}" ] || place_dep "$d" "$n"
	done
done

# --- tests ------------------------------------------------------------------

declare -a tests=()
if [ -d "$tests_dir" ]; then
	while IFS= read -r rel; do
		if [ -n "$only" ]; then
			case ",$only," in *",$rel,"* | *",${rel##*/},"*) ;; *) continue ;; esac
		fi
		tests+=("$rel")
	# helpers/ holds programs tests run, not tests
	done < <(cd "$tests_dir" && find . -path ./helpers -prune -o -type f -perm -u+x -print |
		sed 's|^\./||' | LC_ALL=C sort)
fi
[ ${#tests[@]} -gt 0 ] || [ -z "$only" ] || die "no test named '$only' in $tests_dir"

# --- initramfs --------------------------------------------------------------

root="$work/root"
# Two runs sharing a work directory would delete each other's initramfs:
# the second one waits (another directory: --out).
mkdir -p "$work"
exec 9>"$work/.lock"
if ! flock -n 9; then
	echo "# qemu: waiting for the other run using $work" >&2
	flock 9
fi
rm -rf "$root" "$work/initramfs.cpio" "$console_log"
mkdir -p "$root"/{bin,dev,proc,sys,tmp,run,root,lib,lib64,etc/ccore-qemu,tests}
mkdir -p "$root/lib/modules/$kver" "$root/lib/firmware"
ln -s bin "$root/sbin"
mkdir -p "$root/usr"
ln -s ../bin "$root/usr/bin"
ln -s ../bin "$root/usr/sbin"
ln -s ../lib "$root/usr/lib"

cp /bin/busybox "$root/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ "$applet" = busybox ] || ln -s busybox "$root/bin/$applet"
done

# Copy a module uncompressed: busybox insmod passes the file to the kernel as
# is, and Debian's modules are .ko.xz.
put_module() {
	local src=$1 dst=$2
	mkdir -p "$(dirname "$dst")"
	case "$src" in
	*.ko.xz) busybox xzcat "$src" >"$dst" ;;
	*.ko.zst) zstd -qdc "$src" >"$dst" ;;
	*.ko.gz) gzip -dc "$src" >"$dst" ;;
	*) cp "$src" "$dst" ;;
	esac
}
modlist="$root/etc/ccore-qemu/modules"
: >"$modlist"
for n in "${load_deps[@]}"; do
	rel=${dep_path[$n]%.xz}
	rel=${rel%.zst}
	rel=${rel%.gz}
	put_module "$moddir/${dep_path[$n]}" "$root/lib/modules/$kver/$rel"
	echo "/lib/modules/$kver/$rel $n" >>"$modlist"
done
for n in "${load_ours[@]}"; do
	put_module "${ours_path[$n]}" "$root/lib/modules/$kver/extra/$n.ko"
	echo "/lib/modules/$kver/extra/$n.ko $n ${params[$n]:-}" >>"$modlist"
done
printf '%s\n' "${load_ours[@]}" >"$root/etc/ccore-qemu/ours"

[ ! -d "$firmware_dir" ] || cp -a "$firmware_dir/." "$root/lib/firmware/"

# Tests keep their directory layout (and any data files beside them). They
# are dynamically linked: bring the exact host libraries ldd resolves.
[ ! -d "$tests_dir" ] || cp -a "$tests_dir/." "$root/tests/"
printf '%s\n' "${tests[@]}" >"$root/etc/ccore-qemu/tests"
declare -A libs=()
for rel in "${tests[@]}"; do
	f="$tests_dir/$rel"
	[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
	out=$(ldd "$f" 2>&1) || continue # static: nothing to copy
	if grep -q 'not found' <<<"$out"; then
		die "$rel: missing libraries: $(grep 'not found' <<<"$out" | tr -s ' \t' ' ')"
	fi
	# "libx.so => /path (addr)", and the loader as "/lib64/ld-... (addr)"
	while read -r lib; do
		libs[$lib]=1
	done < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$out")
done
for lib in "${!libs[@]}"; do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done

[ ! -f "$setup" ] || cp "$setup" "$root/etc/ccore-qemu/setup.sh"
cat >"$root/etc/ccore-qemu/config" <<EOF
TEST_TIMEOUT=$test_timeout
TEST_ARGS='${test_args//\'/}'
UNLOAD=$unload
EOF
install -m 755 "$here/guest-init.sh" "$root/init"

# newc with every file owned by root: no root needed on the host, and no
# device nodes either (the kernel's built-in initramfs has /dev/console).
# Uncompressed, because QEMU loads it straight into guest memory and the
# guest would spend more time inflating it than the host saves.
(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) >"$work/initramfs.cpio"

# --- boot -------------------------------------------------------------------

# quiet: only errors and worse reach the console while tests write to it
# (oopses and panics switch the console to verbose by themselves); the full
# log is dumped at the end. log_buf_len: room for all of it. KFENCE is off in
# Debian's build (sample interval 0): turn it on, sampling every millisecond,
# and SLUB's red zones, poisoning and checks of every object
# (slub_debug=FZPU), so a use-after-free shows even when nothing crashes.
append="console=ttyS0 panic=-1 quiet log_buf_len=4M kfence.sample_interval=1 slub_debug=FZPU"
append+=" hung_task_panic=0 no_timer_check mitigations=off $extra_append"
qemu=(qemu-system-x86_64 -accel tcg -m 2G -smp 2 -cpu max
	-nodefaults -no-reboot -display none -serial stdio -monitor none
	-kernel "$vmlinuz" -initrd "$work/initramfs.cpio" -append "$append")

echo "# qemu: $kver, modules: ${load_deps[*]} ${load_ours[*]}, ${#tests[@]} test binaries" >&2
start=$EPOCHREALTIME
boot() {
	set +e
	if [ "$verbose" -eq 1 ]; then
		timeout -k 5 "$total_timeout" "${qemu[@]}" </dev/null 2>&1 | tee "$console_log" >&2
		qemu_rc=${PIPESTATUS[0]}
	else
		timeout -k 5 "$total_timeout" "${qemu[@]}" </dev/null >"$console_log" 2>&1
		qemu_rc=$?
	fi
	set -e
}
boot
# Debian's kernel under TCG with 2 vCPUs now and then dies in its own early
# boot (an int3 oops in code being patched, before /init: none of our
# modules or tests had run).  Boot once more then, and say so; a second
# early death, or any death after /init started, is reported as a failure.
if ! grep -q '### ccore-qemu: init uptime=' "$console_log" && grep -q 'Kernel panic' "$console_log"; then
	cp "$console_log" "$console_log.early-panic"
	echo "# the guest kernel panicked before /init (kept in $console_log.early-panic); booting again" >&2
	boot
fi
elapsed=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
[ "$keep" -eq 1 ] || rm -rf "$root" "$work/initramfs.cpio"

# --- report -----------------------------------------------------------------

passed=0 failed=0 skipped=0 n=0
declare -a problems=()

tap() { # STATUS NAME [DIRECTIVE]
	n=$((n + 1))
	echo "$1 $n $2${3:+ # $3}"
}
case_fail() { tap "not ok" "$1"; failed=$((failed + 1)); }

echo "TAP version 13"

# Per-binary state while inside test-begin/test-end.
cur="" cur_cases=0 cur_failed=0 cur_plan=0
in_dmesg=0 splat=0 dmesg_seen=0 aborted=0 reached_end=0 tainted=0 guest_start="" guest_end=""
declare -a dmesg_bad=()
# A hung task reads "task X blocked for more than N seconds" and
# "echo 0 > /proc/sys/kernel/hung_task_timeout_secs" (a bare "hung_task"
# would match hung_task_panic=0 of the command line dmesg repeats).
bad_re='WARNING:|BUG[: ]|Oops|KFENCE|lockup|Call Trace|blocked for more than|hung_task_timeout_secs|UBSAN:|general protection|Poison overwritten|divide error'

while IFS= read -r line || [ -n "$line" ]; do
	line=${line%$'\r'}
	if [[ "$line" == *"### ccore-qemu: "* ]]; then
		pre=${line%%"### ccore-qemu: "*}
		[ -z "$pre" ] || [ -z "$cur" ] || echo "# $pre"
		m=${line#*"### ccore-qemu: "}
		case "$m" in
		"init uptime="*) guest_start=${m#init uptime=} ;;
		"end uptime="*) guest_end=${m#end uptime=}; reached_end=1 ;;
		"fail "*)
			# fail insmod|rmmod NAME rc=N, fail setup.sh rc=N
			read -r _ what w3 w4 _ <<<"$m"
			case_fail "$what $w3${w4:+ $w4}"
			;;
		"tainted "*)
			tainted=${m#tainted }
			[[ "$tainted" =~ ^[0-9]+$ ]] || tainted=$((1 << 9)) # garbled: assume the worst
			;;
		"dmesg-begin") in_dmesg=1 ;;
		"dmesg-end") in_dmesg=0 splat=0 dmesg_seen=1 ;;
		"abort") aborted=1 ;;
		"timeout "* | "stuck "*) echo "# $m"; problems+=("$m") ;;
		"unload skipped"*) echo "# $m" ;;
		"test-begin "*)
			cur=${m#test-begin }
			cur_cases=0 cur_failed=0 cur_plan=0
			echo "# ---- $cur"
			;;
		"test-end "*)
			rc=${m##*rc=}
			[[ "$rc" =~ ^[0-9]+$ ]] || rc=255 # garbled by a kernel message
			# A binary that died or failed without saying which case: one
			# failed case for it. Fewer cases than its plan: it died midway.
			if [ "$cur_cases" -eq 0 ]; then
				case "$rc" in
				0) tap "ok" "$cur"; passed=$((passed + 1)) ;;
				4) tap "ok" "$cur" "SKIP exit status 4"; skipped=$((skipped + 1)) ;;
				*) case_fail "$cur (exit status $rc)"; problems+=("$cur exited with status $rc") ;;
				esac
			elif [ "$cur_cases" -lt "$cur_plan" ] || { [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && [ "$cur_failed" -eq 0 ]; }; then
				case_fail "$cur (exit status $rc after $cur_cases of $cur_plan cases)"
				problems+=("$cur exited with status $rc after $cur_cases of $cur_plan cases")
			fi
			cur=""
			;;
		esac
		continue
	fi
	if [ "$in_dmesg" -eq 1 ]; then
		# Keep each splat whole, from its first bad line to its end
		# (at most 60 lines), so the report shows where it came from.
		if [ "$splat" -gt 0 ]; then
			dmesg_bad+=("$line")
			splat=$((splat - 1))
			[[ "$line" != *"---[ end trace"* ]] || splat=0
		elif [[ "$line" =~ $bad_re ]]; then
			dmesg_bad+=("$line")
			splat=60
		fi
		continue
	fi
	if [ -z "$cur" ]; then
		# Between tests: setup.sh and insmod output; before init, the
		# kernel's own (quiet) boot messages, which dmesg repeats.
		[ -z "$guest_start" ] || [ "$reached_end" -eq 1 ] || echo "# $line"
		continue
	fi
	# Inside a test binary: its own TAP lines become ours, numbered on;
	# everything else is kept as a diagnostic.
	if [[ "$line" =~ ^(not\ )?ok\ [0-9]+\ (.*)$ ]]; then
		desc=${BASH_REMATCH[2]}
		cur_cases=$((cur_cases + 1))
		name=${desc%%' #'*}
		directive=""
		[[ "$desc" != *' #'* ]] || directive=${desc#*' #'}
		directive=${directive#"${directive%%[! ]*}"}
		if [ -n "${BASH_REMATCH[1]}" ]; then
			case_fail "$cur: $name${directive:+ # $directive}"
			cur_failed=$((cur_failed + 1))
		elif [[ "${directive^^}" == SKIP* ]]; then
			tap "ok" "$cur: $name" "$directive"
			skipped=$((skipped + 1))
		elif [[ "${directive^^}" == XPASS* ]]; then
			# Marked as expected to fail, and passed: the mark is stale.
			case_fail "$cur: $name # $directive"
			cur_failed=$((cur_failed + 1))
		else
			tap "ok" "$cur: $name${directive:+ # $directive}"
			passed=$((passed + 1))
		fi
	elif [[ "$line" =~ ^1\.\.([0-9]+) ]]; then
		cur_plan=${BASH_REMATCH[1]}
	else
		echo "# $line"
	fi
done <"$console_log"

if [ -n "$cur" ]; then
	case_fail "$cur (never finished)"
fi
unfinished=$cur
if [ "$reached_end" -ne 1 ]; then
	if [ "$aborted" -eq 1 ]; then
		why="aborted: a test was stuck in the kernel"
	elif [ "$qemu_rc" -eq 124 ] || [ "$qemu_rc" -eq 137 ]; then
		why="timed out after ${total_timeout}s"
	else
		why="stopped early, qemu exit status $qemu_rc: kernel panic?"
	fi
	case_fail "guest finished the run ($why)"
	# Without a dmesg dump, the end of the console is all there is (a
	# panic prints its trace there); inside a test it was shown already.
	if [ "$dmesg_seen" -eq 0 ] && [ -z "$unfinished" ]; then
		echo "# last console lines ($console_log):"
		tail -n 80 "$console_log" | sed 's/\r$//; s/^/#   /'
	fi
fi
# Taint bits that mean something went wrong in the kernel, whatever dmesg
# kept: B bad page (5), M machine check (4), D oops (7), W warning (9),
# L soft lockup (14). O/E (out-of-tree, unsigned module) are expected.
if [ $((tainted & (1 << 4 | 1 << 5 | 1 << 7 | 1 << 9 | 1 << 14))) -ne 0 ] || [ ${#dmesg_bad[@]} -gt 0 ]; then
	case_fail "kernel log is clean (tainted=$tainted)"
	echo "# offending kernel log lines:"
	printf '#   %s\n' "${dmesg_bad[@]}"
fi

echo "1..$n"
[ ${#problems[@]} -eq 0 ] || printf '# problem: %s\n' "${problems[@]}"
echo "# guest uptime at init ${guest_start:-?}s, at end ${guest_end:-?}s; QEMU wall time ${elapsed}s; console: $console_log"
[ "$n" -gt 0 ] || echo "# no test ran: nothing executable in $tests_dir"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
