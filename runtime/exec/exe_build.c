// SPDX-License-Identifier: MIT
/* Building an executable in memory: create, append, free. */
#include "exec/exe.h"
#include "ccore_internal.h"

#include <stdlib.h>
#include <string.h>

int ccore_exe_new(const struct ccore_topology *topo, struct ccore_exe **out)
{
	struct ccore_exe *exe;
	uint64_t n;

	*out = NULL;
	if (!topo->nodes || !topo->devices_per_node || !topo->ranks_per_device)
		return ccore_error(-EINVAL, "topology: nodes %u, devices per node %u and ranks per device %u must each be 1 or more",
				   topo->nodes, topo->devices_per_node, topo->ranks_per_device);
	n = (uint64_t)topo->nodes * topo->devices_per_node * topo->ranks_per_device;
	if (n > CCORE_EXE_MAX_RANKS)
		return ccore_error(-EINVAL, "topology: %u nodes x %u devices x %u ranks per device is %llu ranks; allowed 1..%u",
				   topo->nodes, topo->devices_per_node, topo->ranks_per_device,
				   (unsigned long long)n, CCORE_EXE_MAX_RANKS);
	if (topo->ranks_per_device > CCORE_EXE_MAX_RANKS_PER_DEVICE)
		return ccore_error(-EINVAL, "topology: ranks per device %u; allowed 1..%u",
				   topo->ranks_per_device, CCORE_EXE_MAX_RANKS_PER_DEVICE);
	exe = calloc(1, sizeof(*exe));
	if (!exe)
		return ccore_error(-ENOMEM, "executable: out of memory");
	exe->ranks = calloc(n, sizeof(*exe->ranks));
	if (!exe->ranks) {
		free(exe);
		return ccore_error(-ENOMEM, "executable: out of memory for %llu ranks",
				   (unsigned long long)n);
	}
	exe->topo = *topo;
	exe->nranks = (uint32_t)n;
	*out = exe;
	return 0;
}

void ccore_exe_free(struct ccore_exe *exe)
{
	if (!exe)
		return;
	for (uint32_t i = 0; i < exe->ncolls; i++)
		free(exe->colls[i].ranks);
	for (uint32_t r = 0; r < exe->nranks; r++)
		free(exe->ranks[r].insns);
	free(exe->colls);
	free(exe->tensors);
	free(exe->ranks);
	free(exe);
}

/* Room for one more of @size bytes in *@arr (@n used of *@cap), at most @max. */
static int make_room(void **arr, uint32_t *cap, uint32_t n, size_t size, uint32_t max,
		     const char *what)
{
	uint32_t ncap;
	void *p;

	if (n >= max)
		return ccore_error(-E2BIG, "too many %s: at most %u allowed", what, max);
	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	if (ncap > max)
		ncap = max;
	p = realloc(*arr, (size_t)ncap * size);
	if (!p)
		return ccore_error(-ENOMEM, "out of memory for %u %s", ncap, what);
	*arr = p;
	*cap = ncap;
	return 0;
}

int ccore_exe_add_tensor(struct ccore_exe *exe, const struct ccore_exe_tensor *t)
{
	int rc = make_room((void **)&exe->tensors, &exe->tensors_cap, exe->ntensors,
			   sizeof(*t), CCORE_EXE_MAX_TENSORS, "tensors");

	if (rc)
		return rc;
	exe->tensors[exe->ntensors++] = *t;
	return 0;
}

int ccore_exe_add_coll(struct ccore_exe *exe, const struct ccore_exe_coll *c)
{
	uint64_t n = (uint64_t)c->group_count * c->group_size;
	struct ccore_exe_coll *d;
	int rc;

	if (n > CCORE_EXE_MAX_RANKS)
		return ccore_error(-EINVAL, "collective '%s': %u groups of %u ranks is more than %u ranks",
				   c->name, c->group_count, c->group_size, CCORE_EXE_MAX_RANKS);
	rc = make_room((void **)&exe->colls, &exe->colls_cap, exe->ncolls, sizeof(*c),
		       CCORE_EXE_MAX_COLLS, "collectives");
	if (rc)
		return rc;
	d = &exe->colls[exe->ncolls];
	*d = *c;
	d->ranks = malloc(n ? n * sizeof(uint32_t) : 1);
	if (!d->ranks)
		return ccore_error(-ENOMEM, "collective '%s': out of memory", c->name);
	if (n)
		memcpy(d->ranks, c->ranks, n * sizeof(uint32_t));
	exe->ncolls++;
	return 0;
}

int ccore_exe_add_insn(struct ccore_exe *exe, uint32_t rank, const struct ccore_exe_insn *in)
{
	struct ccore_exe_rank *r;
	int rc;

	if (rank >= exe->nranks)
		return ccore_error(-EINVAL, "rank %u out of range (0..%u)", rank, exe->nranks - 1);
	r = &exe->ranks[rank];
	rc = make_room((void **)&r->insns, &r->cap, r->ninsns, sizeof(*in), CCORE_EXE_MAX_INSNS,
		       "instructions on one rank");
	if (rc)
		return rc;
	r->insns[r->ninsns++] = *in;
	return 0;
}
