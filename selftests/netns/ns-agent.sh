#!/bin/sh
# mpirun's remote-shell agent for hosts made of network namespaces
# (selftests/netns/hosts.sh --outside): "ns-agent.sh HOST COMMAND..." runs
# COMMAND (Open MPI's orted) in the namespace of HOST, one of hosts.sh's
# addresses 10.231.0.(i+1), as hostname hI with $CCORE_HOSTID=hostI, as
# ssh would run it on host i.  So mpirun --mca plm_rsh_agent ns-agent.sh
# sees each namespace as a node of its own (its vader stays inside a
# host and its tcp goes over the veth pair), and its processes are there.
#
# Needs $CCORE_TEST_NETNS (hosts.sh --outside sets it).  "ns-agent.sh
# --local I COMMAND..." runs COMMAND as host I the same way, for mpirun
# itself.
set -eu
usage() { sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
# Open MPI hands the remote command as one string for a shell, as to ssh;
# --local's is a list of arguments
case "${1:-}" in
-h|--help) usage; exit 0 ;;
--local) [ $# -ge 3 ] || { echo "ns-agent.sh: --local needs a host index and a command" >&2; exit 2; }
	i=$2 run='exec "$@"'; shift 2 ;;
10.231.0.*) i=$((${1##*.} - 1)) run='eval "exec $*"'; shift ;;
*) echo "ns-agent.sh: host '${1:-}' is not one of hosts.sh's (10.231.0.N)" >&2; exit 2 ;;
esac
[ -n "${CCORE_TEST_NETNS:-}" ] || { echo "ns-agent.sh: no \$CCORE_TEST_NETNS (run under selftests/netns/hosts.sh --outside)" >&2; exit 2; }
# shellcheck disable=SC2086 # a list of paths without blanks
set -- "$(echo $CCORE_TEST_NETNS | tr ' ' '\n' | sed -n "$((i + 1))p")" "$i" "$@"
[ -n "$1" ] || { echo "ns-agent.sh: no namespace for host $2" >&2; exit 2; }
ns=$1 i=$2
shift 2
# shellcheck disable=SC2016 # $0 and $* are the inner shell's
exec nsenter --net="$ns" -- unshare --uts -- sh -c \
	'hostname "h$0"; CCORE_HOSTID="host$0" FI_TCP_IFACE=eth0; export CCORE_HOSTID FI_TCP_IFACE; '"$run" "$i" "$@"
