#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check Documentation/ABI/testing/sysfs-driver-ccore against the driver.

Every sysfs file the driver creates must have an entry, and every entry must
name a file the driver creates, with the same access ((RO), (RW) or (WO) at
the start of its description).  The files are read from driver/*.c:

  DEVICE_ATTR_RO/RW/WO(name)   in ccore_sysfs.c: /sys/class/accel/accel<N>/name
                               in ccore_sim.c:   /sys/bus/ccore_sim/devices/ccore_sim<ID>/name
  BUS_ATTR_RO/RW/WO(name)      /sys/bus/ccore_sim/name
  module_param(name, type, mode)  /sys/module/ccore/parameters/name
  ccore_ring_counter_names[]   /sys/class/accel/accel<N>/rings/c<C>e<E>r<R>_<what>

Each entry must also be in the kernel's ABI format: What: lines, then Date:,
KernelVersion:, Contact: and Description:.

  sysfs_abi_check.py [--abi FILE] [--driver DIR] [--self-test]

--self-test also checks that the check fails when any one entry is missing.
Exit status: 0 when they agree, 1 when not (each problem on its own line),
2 for bad usage.
"""
import argparse
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# Where a file's DEVICE_ATTR_*() attributes live.
DEVICE_ATTR_HOME = {
    "ccore_sysfs.c": "/sys/class/accel/accel<N>",
    "ccore_sim.c": "/sys/bus/ccore_sim/devices/ccore_sim<ID>",
}
BUS_DIR = "/sys/bus/ccore_sim"
PARAM_DIR = "/sys/module/ccore/parameters"
RING_FILE = "/sys/class/accel/accel<N>/rings/c<C>e<E>r<R>_{}"
FIELDS = ("Date", "KernelVersion", "Contact", "Description")


def param_access(mode):
    """(RO)/(RW)/(WO) of a module_param() mode such as 0444 or 0644."""
    value = int(mode, 8)
    readable, writable = value & 0o444, value & 0o222
    if readable and writable:
        return "RW"
    return "RO" if readable else "WO"


def driver_files(driver_dir):
    """{path: access} of every sysfs file the driver creates, and problems."""
    files, problems = {}, []
    for name in sorted(os.listdir(driver_dir)):
        if not name.endswith(".c"):
            continue
        with open(os.path.join(driver_dir, name), encoding="utf-8") as f:
            text = f.read()
        for access, attr in re.findall(r"\bDEVICE_ATTR_(RO|RW|WO)\((\w+)\)", text):
            home = DEVICE_ATTR_HOME.get(name)
            if home is None:
                problems.append(f"driver/{name}: DEVICE_ATTR_{access}({attr}): the check does not "
                                f"know which device driver/{name}'s attributes are on "
                                f"(add it to DEVICE_ATTR_HOME in {os.path.relpath(__file__, ROOT)})")
                continue
            files[f"{home}/{attr}"] = access
        for access, attr in re.findall(r"\bBUS_ATTR_(RO|RW|WO)\((\w+)\)", text):
            files[f"{BUS_DIR}/{attr}"] = access
        for attr, mode in re.findall(r"\bmodule_param\((\w+),\s*\w+,\s*(0[0-7]+)\)", text):
            if int(mode, 8):
                files[f"{PARAM_DIR}/{attr}"] = param_access(mode)
        names = re.search(r"ccore_ring_counter_names\[[^]]*\]\s*=\s*\{(.*?)\};", text, re.S)
        if names:
            for what in re.findall(r'"(\w+)"', names.group(1)):
                files[RING_FILE.format(what)] = "RO"
    if not files:
        problems.append(f"{driver_dir}: found no sysfs files at all")
    return files, problems


def abi_entries(abi_file):
    """{path: access} of every documented file, and format problems."""
    with open(abi_file, encoding="utf-8") as f:
        text = f.read()
    entries, problems = {}, []
    for number, block in enumerate(re.split(r"\n\s*\n", text.strip()), 1):
        whats = re.findall(r"^What:\s+(\S+)\s*$", block, re.M)
        where = f"{os.path.basename(abi_file)}: entry {number} ({whats[0] if whats else 'no What:'})"
        if not whats:
            problems.append(f"{where}: no What: line")
            continue
        for field in FIELDS:
            if not re.search(rf"^{field}:", block, re.M):
                problems.append(f"{where}: no {field}: line")
        access = re.search(r"^Description:\s*\n?\s*\((RO|RW|WO)\)", block, re.M)
        if not access:
            problems.append(f"{where}: the description does not start with (RO), (RW) or (WO)")
        for what in whats:
            if what in entries:
                problems.append(f"{where}: {what} is described twice")
            entries[what] = access.group(1) if access else None
    return entries, problems


def compare(files, entries, abi_name):
    problems = []
    for path in sorted(files):
        if path not in entries:
            problems.append(f"{path} ({files[path]}) is not described in {abi_name}")
        elif entries[path] and entries[path] != files[path]:
            problems.append(f"{path}: {abi_name} says ({entries[path]}), the driver makes it "
                            f"({files[path]})")
    for path in sorted(set(entries) - set(files)):
        problems.append(f"{abi_name} describes {path}, which the driver does not create")
    return problems


def self_test(abi_file, files):
    """The check must fail when any one entry is left out."""
    with open(abi_file, encoding="utf-8") as f:
        blocks = re.split(r"\n\s*\n", f.read().strip())
    problems = []
    for i, block in enumerate(blocks):
        kept = "\n\n".join(blocks[:i] + blocks[i + 1:]) + "\n"
        tmp = f"{abi_file}.selftest.{os.getpid()}"
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(kept)
            entries, _ = abi_entries(tmp)
        finally:
            os.unlink(tmp)
        if not compare(files, entries, "the ABI file"):
            problems.append(f"self-test: leaving out entry {i + 1} went unnoticed")
    return problems, len(blocks)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--abi", default=os.path.join(ROOT, "Documentation/ABI/testing/sysfs-driver-ccore"),
                    help="the ABI file (default: %(default)s)")
    ap.add_argument("--driver", default=os.path.join(ROOT, "driver"),
                    help="the driver sources (default: %(default)s)")
    ap.add_argument("--self-test", action="store_true",
                    help="also check that leaving out any one entry fails the check")
    args = ap.parse_args()
    for path, what in ((args.abi, "--abi"), (args.driver, "--driver")):
        if not os.path.exists(path):
            print(f"sysfs_abi_check: {what} {path}: no such file or directory", file=sys.stderr)
            return 2

    files, problems = driver_files(args.driver)
    entries, abi_problems = abi_entries(args.abi)
    problems += abi_problems + compare(files, entries, os.path.relpath(args.abi, ROOT))
    if args.self_test and not problems:
        more, count = self_test(args.abi, files)
        problems += more
        if not more:
            print(f"sysfs_abi_check: self-test: each of the {count} entries, left out, fails the check")
    for p in problems:
        print(f"sysfs_abi_check: {p}")
    if problems:
        return 1
    print(f"sysfs_abi_check: {len(files)} sysfs files, each described in "
          f"{os.path.relpath(args.abi, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
