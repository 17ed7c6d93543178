// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's only source of randomness: splitmix64 from the seed, so a
 * seed names what is generated (as far as the timing of several processes
 * lets the results, and with them the later choices, repeat).
 */
#include <string.h>

#include "kfuzz.h"

void kf_rng_seed(struct kf_rng *r, uint64_t seed)
{
	r->state = seed ^ 0x6a09e667f3bcc908ull;
}

uint64_t kf_next(struct kf_rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint32_t kf_below(struct kf_rng *r, uint32_t n)
{
	return n ? (uint32_t)(kf_next(r) % n) : 0;
}

bool kf_chance(struct kf_rng *r, uint32_t percent)
{
	return kf_below(r, 100) < percent;
}

/* The values parsers get wrong: around zero, the type widths, the signs. */
static const uint64_t boundaries[] = {
	0, 1, 2, 7, 8, 63, 64, 255, 256, 4095, 4096, 65535, 65536, 0x7fffffff,
	0x80000000, 0xffffffff, 0x100000000ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
	~0ull, ~0ull - 1, 1ull << 39, 1ull << 40, 1ull << 24, (1ull << 24) + 1,
};

uint64_t kf_boundary(struct kf_rng *r)
{
	return boundaries[kf_below(r, sizeof(boundaries) / sizeof(boundaries[0]))];
}

void kf_mutate(struct kf_rng *r, void *p, size_t len)
{
	uint8_t *b = p;
	uint32_t rounds = 1 + kf_below(r, 3), k;
	size_t at;

	if (!len)
		return;
	for (k = 0; k < rounds; k++) {
		switch (kf_below(r, 4)) {
		case 0:	/* one bit */
			at = kf_below(r, (uint32_t)len);
			b[at] ^= (uint8_t)(1u << kf_below(r, 8));
			break;
		case 1: {	/* a boundary value into an aligned u32 */
			uint32_t v = (uint32_t)kf_boundary(r);

			if (len < 4)
				break;
			at = kf_below(r, (uint32_t)(len / 4)) * 4;
			memcpy(b + at, &v, 4);
			break;
		}
		case 2: {	/* a boundary value into an aligned u64 */
			uint64_t v = kf_boundary(r);

			if (len < 8)
				break;
			at = kf_below(r, (uint32_t)(len / 8)) * 8;
			memcpy(b + at, &v, 8);
			break;
		}
		default:	/* one random byte */
			at = kf_below(r, (uint32_t)len);
			b[at] = (uint8_t)kf_next(r);
			break;
		}
	}
}

uint64_t kf_bad_pointer(struct kf_rng *r)
{
	static const uint64_t bad[] = {
		0, 1, 0x1000, 0xdead0000, 0x7ffffffff000ull, 0xffff800000000000ull,
		0xffffffffff600000ull, ~0ull,
	};

	return bad[kf_below(r, sizeof(bad) / sizeof(bad[0]))];
}
