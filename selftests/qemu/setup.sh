#!/bin/sh
# Run in the QEMU guest after the modules are loaded, before the tests:
# create the simulated devices the kernel tests use.
#
#   fabric 0: two devices (/dev/accel/accelN, the first ccore ones): what the
#             uAPI tests (selftests/driver) and the accel backend use
#   fabric 1: two more, for tests that need a second fabric
#
# Tests that need something else (a tiny device memory, unplugging) create
# and delete their own fabric.
set -e
echo "0 2" >/sys/bus/ccore_sim/new_device
echo "1 2" >/sys/bus/ccore_sim/new_device
ls /dev/accel
