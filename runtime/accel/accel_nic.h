/* SPDX-License-Identifier: MIT */
/*
 * The proxy of the kernel driver's NIC queue (driver/ccore_nic.c): what
 * a host's network proxy does with a fabric that is one host of several
 * ("here=N").  It works on the device file that owns the rings (its
 * transfers are that file's alone) and on a wire to the other host's
 * proxy: any connected stream fd (a socket between hosts; a socketpair
 * between two fabrics of one machine, as the QEMU test runs them).
 *
 * The runtime's accel system still opens whole fabrics only, and the
 * communicator's path across hosts is the sim backend's (runtime/sim/
 * sim_net.c over libfabric), so nothing in the runtime calls this yet:
 * these are the pieces that path would call on the driver.
 */
#ifndef CCORE_ACCEL_NIC_H
#define CCORE_ACCEL_NIC_H

#include <stddef.h>
#include <stdint.h>

/* Bytes a proxy's transfer buffer grows to, at most (one transfer whole) */
#define ACCEL_NIC_MAX_XFER (1ull << 32)

/* A proxy's buffer for one transfer's bytes, grown as transfers need. */
struct accel_nic_buf {
	void *data;
	size_t size;
};

void accel_nic_buf_free(struct accel_nic_buf *b);

/* Map @size bytes of another host's device @device, whose first byte is @remote there. */
int accel_nic_remote_map(int fd, uint32_t device, uint64_t size, uint64_t remote,
			 uint64_t *dev_addr);
/* Let this file's descriptors signal another host's semaphores @first..+@count. */
int accel_nic_remote_sems(int fd, uint32_t first, uint32_t count);

/*
 * Sender: wait up to @timeout_ms (asleep in poll(), never spinning) for a
 * transfer of @fd's rings, send it on @wire, wait for the receiver's
 * answer and report it done with the receiver's status (a failure there,
 * or on the wire, fails the descriptor: its job faults).  0 when one was
 * carried, -ETIMEDOUT when none came, else a negative errno with
 * ccore_last_error() saying what failed.
 */
int accel_nic_forward(int fd, int wire, struct accel_nic_buf *buf, int timeout_ms);
/*
 * Receiver: read one transfer from @wire (waiting up to @timeout_ms for
 * it), deliver it on @fd (bytes into this host's memory, then the
 * semaphore change) and answer the sender with the status.  0 when it
 * was delivered, -ETIMEDOUT, -EPIPE when the wire closed, or the error.
 */
int accel_nic_accept(int fd, int wire, struct accel_nic_buf *buf, int timeout_ms);

#endif
