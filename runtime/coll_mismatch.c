// SPDX-License-Identifier: MIT
/*
 * What two ranks' calls differ in (see coll_mismatch.h): every field the
 * ranks must agree on is compared and named with both values, so a
 * mismatch is found from the message alone.
 */
#include "coll_mismatch.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Append to @buf (@len bytes, *@at used); never past its end. */
static void __attribute__((format(printf, 4, 5)))
append(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*at >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	if (n > 0)
		*at += (size_t)n;
}

static const char *redop_or_none(uint32_t op)
{
	return op ? ccore_redop_name((enum ccore_redop)op) : "none";
}

/*
 * Every field in which rank @rb's @b differs from rank @ra's @a, each with
 * both values: "count (rank 0: 10, rank 1: 11), redop (rank 0: sum, ...)".
 */
static void shape_diff(char *buf, size_t len, const struct op *a, uint32_t ra, const struct op *b,
		       uint32_t rb)
{
	size_t at = 0;

	buf[0] = 0;
	if (a->coll != b->coll)
		append(buf, len, &at, "collective (rank %u: %s, rank %u: %s), ", ra,
		       cs_coll_name(a->coll), rb, cs_coll_name(b->coll));
	if (a->count != b->count)
		append(buf, len, &at, "count (rank %u: %llu, rank %u: %llu), ", ra,
		       (unsigned long long)a->count, rb, (unsigned long long)b->count);
	if (a->dtype != b->dtype)
		append(buf, len, &at, "dtype (rank %u: %s, rank %u: %s), ", ra,
		       ccore_dtype_name(a->dtype), rb, ccore_dtype_name(b->dtype));
	if (a->redop != b->redop)
		append(buf, len, &at, "redop (rank %u: %s, rank %u: %s), ", ra,
		       redop_or_none(a->redop), rb, redop_or_none(b->redop));
	if (a->root != b->root)
		append(buf, len, &at, "root (rank %u: %u, rank %u: %u), ", ra, a->root, rb, b->root);
	if (a->stream && b->stream && a->stream->id != b->stream->id)
		append(buf, len, &at, "stream (rank %u: %u, rank %u: %u), ", ra, a->stream->id, rb,
		       b->stream->id);
	/* drop the last ", " */
	at = strlen(buf);
	if (at >= 2)
		buf[at - 2] = 0;
}

int coll_mismatch_error(const struct op *first, const struct op *o, uint32_t r)
{
	char diff[512];

	shape_diff(diff, sizeof(diff), first, 0, o, r);
	return ccore_error(-EINVAL,
			   "rank %u posted %s count %llu %s redop %s (root %u, stream %u) while rank 0 posted %s count %llu %s redop %s (root %u, stream %u); differing: %s; every rank must call the same collective in the same order",
			   r, cs_coll_name(o->coll), (unsigned long long)o->count,
			   ccore_dtype_name(o->dtype), redop_or_none(o->redop), o->root,
			   o->stream->id, cs_coll_name(first->coll), (unsigned long long)first->count,
			   ccore_dtype_name(first->dtype), redop_or_none(first->redop), first->root,
			   first->stream->id, diff);
}

int coll_p2p_mismatch_error(const struct op *s, const struct op *rv)
{
	/* each side's stream is its own: only count and dtype must agree */
	struct op as_received = { .coll = s->coll, .count = rv->count, .dtype = rv->dtype,
				  .root = s->root };
	char diff[256];

	shape_diff(diff, sizeof(diff), s, s->root, &as_received, s->peer);
	return ccore_error(-EINVAL, "send %u->%u of %llu %s does not match the receive of %llu %s; differing: %s",
			   s->root, s->peer, (unsigned long long)s->count,
			   ccore_dtype_name(s->dtype), (unsigned long long)rv->count,
			   ccore_dtype_name(rv->dtype), diff);
}
