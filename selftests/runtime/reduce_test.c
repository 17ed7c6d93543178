// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the model's reduction kernels (model/ccm_reduce.c) against
 * scalar references written independently here: f16 through the compiler's
 * _Float16, bf16 and f32 through double arithmetic and an explicit
 * round-to-nearest-even, integers through wider or unsigned arithmetic.
 * Results are compared bit for bit; where the reference is a NaN, any
 * quiet NaN is accepted.
 *
 * Random inputs come from a seed printed by every case that uses one; set
 * CCORE_TEST_SEED to repeat a run.
 *
 * Over 800 lines on purpose: the independent scalar references (one per
 * dtype and operation) live here, beside the cases that use them.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ccore_test.h"
#include "ccm.h"
#include "util/float_bits.h"
#include "ccore.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NUM_DTYPES 10	/* DRM_CCORE_DTYPE_I8 .. DRM_CCORE_DTYPE_F64 */
#define NUM_REDOPS 4	/* DRM_CCORE_REDOP_SUM .. DRM_CCORE_REDOP_MIN */

/* --- random numbers ------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	/* splitmix64: small, fast, and good enough for test inputs */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rng_below(uint32_t n)
{
	return (uint32_t)(rng_next() % n);
}

/* Seed the generator for one case and say how to repeat it. */
static void rng_seed(const char *what)
{
	static uint64_t base;
	const char *env;

	if (!base) {
		env = getenv("CCORE_TEST_SEED");
		base = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
		if (!base)
			base = 1;
	}
	rng_state = base;
	for (const char *p = what; *p; p++)
		rng_state = rng_state * 131 + (unsigned char)*p;
	ccore_test_log("%s: seed %llu (CCORE_TEST_SEED=%llu repeats it)", what,
		       (unsigned long long)base, (unsigned long long)base);
}

/* --- reference float formats ------------------------------------------- */

FLOAT_BITS_FNS(f16, _Float16, uint16_t)

/*
 * Round @x to a binary format with @p significand bits and normal exponents
 * emin..emax: to nearest, ties to even, overflowing to infinity.  Done in
 * double by scaling to the quantum of x and rounding with nearbyint(),
 * which is nothing like the model's bit manipulation.
 */
static double ref_round(double x, int p, int emin, int emax)
{
	double q, r, maxv;
	int e;

	if (x != x || x == 0 || isinf(x))
		return x;
	frexp(fabs(x), &e);	/* |x| = f * 2^e, f in [0.5, 1) */
	e -= 1;			/* exponent of the leading bit */
	if (e < emin)
		e = emin;	/* subnormal: fixed quantum */
	q = ldexp(1.0, e - (p - 1));
	r = nearbyint(x / q) * q;
	maxv = ldexp(2.0 - ldexp(1.0, 1 - p), emax);
	if (fabs(r) > maxv)
		r = copysign(INFINITY, x);
	return r;
}

/* bf16 value from its fields, by arithmetic rather than by shifting. */
static double ref_bf16_value(uint16_t h)
{
	int sign = h >> 15, e = (h >> 7) & 0xff, m = h & 0x7f;
	double v;

	if (e == 0xff)
		v = m ? NAN : INFINITY;
	else if (e == 0)
		v = ldexp(m, -126 - 7);
	else
		v = ldexp(128 + m, e - 127 - 7);
	return sign ? -v : v;
}

/* Encode a value that is exactly a bf16 (or Inf/NaN) into its bits. */
static uint16_t ref_bf16_bits(double v)
{
	uint32_t u;

	if (v != v)
		return 0x7fc0;
	u = f32_bits((float)v);	/* exact: a bf16 is a float */
	if (u & 0xffff)
		FAIL("reference value %a is not a bf16", v);
	return (uint16_t)(u >> 16);
}

static uint16_t ref_f32_to_bf16(float f)
{
	return ref_bf16_bits(ref_round(f, 8, -126, 127));
}

static double ref_f16_value(uint16_t h)
{
	return (double)f16_from_bits(h);
}

/* --- elements ------------------------------------------------------------- */

static uint32_t dsize(uint32_t dtype)
{
	static const uint32_t size[NUM_DTYPES + 1] = {
		0, 1, 1, 4, 4, 8, 8, 2, 2, 4, 8,
	};

	return dtype <= NUM_DTYPES ? size[dtype] : 0;
}

static int is_float(uint32_t dtype)
{
	return dtype >= DRM_CCORE_DTYPE_F16;
}

static uint64_t load(uint32_t dtype, const uint8_t *p, size_t i)
{
	uint64_t v = 0;

	/* little-endian host: the low bytes of v are the element */
	memcpy(&v, p + i * dsize(dtype), dsize(dtype));
	return v;
}

static void store(uint32_t dtype, uint8_t *p, size_t i, uint64_t v)
{
	memcpy(p + i * dsize(dtype), &v, dsize(dtype));
}

static int bits_is_nan(uint32_t dtype, uint64_t v)
{
	switch (dtype) {
	case DRM_CCORE_DTYPE_F16:
		return (v & 0x7fff) > 0x7c00;
	case DRM_CCORE_DTYPE_BF16:
		return (v & 0x7fff) > 0x7f80;
	case DRM_CCORE_DTYPE_F32:
		return (v & 0x7fffffff) > 0x7f800000;
	case DRM_CCORE_DTYPE_F64:
		return (v & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
	}
	return 0;
}

static int bits_is_quiet_nan(uint32_t dtype, uint64_t v)
{
	static const uint64_t quiet[NUM_DTYPES + 1] = {
		[DRM_CCORE_DTYPE_F16] = 0x0200,
		[DRM_CCORE_DTYPE_BF16] = 0x0040,
		[DRM_CCORE_DTYPE_F32] = 0x00400000,
		[DRM_CCORE_DTYPE_F64] = 0x0008000000000000ull,
	};

	return bits_is_nan(dtype, v) && (v & quiet[dtype]);
}

/* A float element as a double (exact for every format here). */
static double value_of(uint32_t dtype, uint64_t v)
{
	switch (dtype) {
	case DRM_CCORE_DTYPE_F16:
		return ref_f16_value((uint16_t)v);
	case DRM_CCORE_DTYPE_BF16:
		return ref_bf16_value((uint16_t)v);
	case DRM_CCORE_DTYPE_F32:
		return f32_from_bits((uint32_t)v);
	}
	return f64_from_bits(v);
}

/* --- reference reduction -------------------------------------------------- */

/* 64-bit signed view of an integer element of any width. */
static int64_t sval(uint32_t dtype, uint64_t v)
{
	switch (dtype) {
	case DRM_CCORE_DTYPE_I8:
		return (int8_t)(uint8_t)v;
	case DRM_CCORE_DTYPE_I32:
		return (int32_t)(uint32_t)v;
	case DRM_CCORE_DTYPE_I64:
		return (int64_t)v;
	}
	return 0;
}

static uint64_t width_mask(uint32_t dtype)
{
	return dsize(dtype) == 8 ? ~0ull : (1ull << (8 * dsize(dtype))) - 1;
}

static uint64_t ref_int(uint32_t dtype, uint32_t redop, uint64_t x, uint64_t y)
{
	int sgn = dtype == DRM_CCORE_DTYPE_I8 || dtype == DRM_CCORE_DTYPE_I32 ||
		  dtype == DRM_CCORE_DTYPE_I64;
	unsigned __int128 p;
	int gt;

	switch (redop) {
	case DRM_CCORE_REDOP_SUM:
		return (x + y) & width_mask(dtype);
	case DRM_CCORE_REDOP_PROD:
		/* the full product, then its low bits: two's-complement wrap */
		if (sgn)
			p = (unsigned __int128)((__int128)sval(dtype, x) * sval(dtype, y));
		else
			p = (unsigned __int128)x * y;
		return (uint64_t)p & width_mask(dtype);
	}
	gt = sgn ? sval(dtype, x) > sval(dtype, y) : x > y;
	if (redop == DRM_CCORE_REDOP_MAX)
		return gt ? x : y;
	return gt ? y : x;
}

/*
 * max/min as documented in ccm_reduce.c: NaN if either operand is NaN,
 * -0 below +0, otherwise the larger/smaller operand's bits.
 */
static uint64_t ref_minmax(uint32_t dtype, uint32_t redop, uint64_t x, uint64_t y,
			   int *nan)
{
	double vx = value_of(dtype, x), vy = value_of(dtype, y);
	int want_max = redop == DRM_CCORE_REDOP_MAX;

	if (isnan(vx) || isnan(vy)) {
		*nan = 1;
		return 0;
	}
	if (vx == vy && !signbit(vx) != !signbit(vy))	/* +0 and -0 */
		return (!signbit(vx)) == want_max ? x : y;
	if (vx == vy)
		return x;
	return (vx > vy) == want_max ? x : y;
}

static uint64_t ref_float(uint32_t dtype, uint32_t redop, uint64_t x, uint64_t y,
			  int *nan)
{
	double vx, vy, r;

	*nan = 0;
	if (redop == DRM_CCORE_REDOP_MAX || redop == DRM_CCORE_REDOP_MIN)
		return ref_minmax(dtype, redop, x, y, nan);

	if (dtype == DRM_CCORE_DTYPE_F16) {
		/* the compiler's half precision */
		_Float16 hx = f16_from_bits((uint16_t)x), hy = f16_from_bits((uint16_t)y), hr;

		hr = redop == DRM_CCORE_REDOP_SUM ? hx + hy : hx * hy;
		*nan = hr != hr;
		return f16_bits(hr);
	}
	if (dtype == DRM_CCORE_DTYPE_F64) {
		r = redop == DRM_CCORE_REDOP_SUM ? f64_from_bits(x) + f64_from_bits(y) :
						   f64_from_bits(x) * f64_from_bits(y);
		*nan = r != r;
		return f64_bits(r);
	}
	/*
	 * bf16 and f32: the exact product fits a double; a sum is rounded
	 * twice (double, then the format), which is harmless because double
	 * has more than twice their precision plus two bits.
	 */
	vx = value_of(dtype, x);
	vy = value_of(dtype, y);
	r = redop == DRM_CCORE_REDOP_SUM ? vx + vy : vx * vy;
	*nan = r != r;
	if (*nan)
		return 0;
	if (dtype == DRM_CCORE_DTYPE_BF16)
		return ref_bf16_bits(ref_round(r, 8, -126, 127));
	return f32_bits((float)ref_round(r, 24, -126, 127));
}

static uint64_t ref_op(uint32_t dtype, uint32_t redop, uint64_t x, uint64_t y, int *nan)
{
	*nan = 0;
	if (is_float(dtype))
		return ref_float(dtype, redop, x, y, nan);
	return ref_int(dtype, redop, x, y);
}

/* --- inputs ------------------------------------------------------------------ */

static const uint64_t specials_8[] = { 0, 1, 2, 0x7f, 0x80, 0x81, 0xfe, 0xff, 0x10 };
static const uint64_t specials_32[] = {
	0, 1, 2, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff,
	0x10000, 0xffff, 0x7ffffffe,
};
static const uint64_t specials_64[] = {
	0, 1, 2, 0x7fffffffffffffffull, 0x8000000000000000ull,
	0x8000000000000001ull, 0xffffffffffffffffull, 0xfffffffffffffffeull,
	0x100000000ull, 0xffffffffull,
};
static const uint64_t specials_f16[] = {
	0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7d00, 0x7c01,
	0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x8400, 0x7bff, 0xfbff,
	0x3c00, 0xbc00, 0x3c01, 0x7800, 0x1400, 0x0200, 0x3555,
};
static const uint64_t specials_bf16[] = {
	0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7fa0, 0x7f81,
	0x0001, 0x8001, 0x007f, 0x807f, 0x0080, 0x8080, 0x7f7f, 0xff7f,
	0x3f80, 0xbf80, 0x3f81, 0x7f00, 0x3b80, 0x3c00, 0x3eab,
};
static const uint64_t specials_f32[] = {
	0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000,
	0x7fa00000, 0x7f800001, 0x00000001, 0x80000001, 0x007fffff, 0x00800000,
	0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000, 0x3f800001, 0x33800000,
	0x34000000, 0x7f000000, 0x3eaaaaab,
};
static const uint64_t specials_f64[] = {
	0, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
	0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff4000000000000ull,
	0x7ff0000000000001ull, 1, 0x8000000000000001ull, 0x000fffffffffffffull,
	0x0010000000000000ull, 0x7fefffffffffffffull, 0xffefffffffffffffull,
	0x3ff0000000000000ull, 0xbff0000000000000ull, 0x3ff0000000000001ull,
	0x3ca0000000000000ull, 0x7fe0000000000000ull,
};

struct specials {
	const uint64_t *v;
	size_t n;
};

static struct specials specials_of(uint32_t dtype)
{
#define SP(a) ((struct specials){ a, ARRAY_SIZE(a) })
	switch (dtype) {
	case DRM_CCORE_DTYPE_I8:
	case DRM_CCORE_DTYPE_U8:
		return SP(specials_8);
	case DRM_CCORE_DTYPE_I32:
	case DRM_CCORE_DTYPE_U32:
		return SP(specials_32);
	case DRM_CCORE_DTYPE_I64:
	case DRM_CCORE_DTYPE_U64:
		return SP(specials_64);
	case DRM_CCORE_DTYPE_F16:
		return SP(specials_f16);
	case DRM_CCORE_DTYPE_BF16:
		return SP(specials_bf16);
	case DRM_CCORE_DTYPE_F32:
		return SP(specials_f32);
	}
	return SP(specials_f64);
#undef SP
}

/*
 * A float of moderate magnitude: exponent within +-4 of 1.0, so sums and
 * products stay finite and often land exactly halfway (ties).
 */
static uint64_t moderate_float(uint32_t dtype)
{
	uint64_t sign = rng_next() & 1, r = rng_next();
	uint64_t e = rng_below(9);	/* exponent: bias - 4 + e */

	switch (dtype) {
	case DRM_CCORE_DTYPE_F16:
		/* few fraction bits set: more exact sums and ties */
		return sign << 15 | (e + 11) << 10 | (r & 0x3f0);
	case DRM_CCORE_DTYPE_BF16:
		return sign << 15 | (e + 123) << 7 | (r & 0x7f);
	case DRM_CCORE_DTYPE_F32:
		return sign << 31 | (e + 123) << 23 | (r & 0x7fffff);
	}
	return sign << 63 | (e + 1019) << 52 | (r & 0xfffffffffffffull);
}

static uint64_t gen_elem(uint32_t dtype)
{
	struct specials sp = specials_of(dtype);
	uint32_t pick = rng_below(8);

	if (pick < 2)
		return sp.v[rng_below((uint32_t)sp.n)];
	if (pick < 5 && is_float(dtype))
		return moderate_float(dtype);
	return rng_next() & width_mask(dtype);
}

static void gen(uint32_t dtype, uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		store(dtype, p, i, gen_elem(dtype));
}

/* --- checking --------------------------------------------------------------- */

/*
 * Compare @n elements of @got with the reference applied to @x and @y
 * (copies of the inputs taken before the call, since dst may alias them).
 */
static void check(uint32_t dtype, uint32_t redop, const uint8_t *got, const uint8_t *x,
		  const uint8_t *y, size_t n, const char *layout)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t a = load(dtype, x, i), b = load(dtype, y, i);
		uint64_t g = load(dtype, got, i), want;
		int nan;

		want = ref_op(dtype, redop, a, b, &nan);
		if (nan ? bits_is_quiet_nan(dtype, g) : g == want)
			continue;
		if (nan)
			FAIL("%s %s, %zu elements (%s), element %zu: %#llx op %#llx = %#llx, want a quiet NaN",
			     ccm_dtype_name(dtype), ccm_redop_name(redop), n, layout, i,
			     (unsigned long long)a, (unsigned long long)b,
			     (unsigned long long)g);
		FAIL("%s %s, %zu elements (%s), element %zu: %#llx op %#llx = %#llx, want %#llx",
		     ccm_dtype_name(dtype), ccm_redop_name(redop), n, layout, i,
		     (unsigned long long)a, (unsigned long long)b, (unsigned long long)g,
		     (unsigned long long)want);
	}
}

enum layout {
	L_SEPARATE,	/* three buffers at the given offsets */
	L_DST_IS_A,
	L_DST_IS_B,
	L_A_IS_B,	/* both operands one buffer, dst separate */
	L_ALL_SAME,
	NUM_LAYOUTS,
};

static const char *const layout_name[NUM_LAYOUTS] = {
	"separate", "dst == a", "dst == b", "a == b", "dst == a == b",
};

/* Byte offsets of (dst, a, b) from 8-aligned bases: covers misalignment. */
static const unsigned int offsets[][3] = {
	{ 0, 0, 0 }, { 1, 2, 3 }, { 3, 5, 7 }, { 7, 1, 4 },
	{ 2, 6, 0 }, { 5, 5, 5 }, { 4, 0, 1 }, { 6, 3, 2 },
};

#define MAX_ELEMS 1100
#define BUF_BYTES (MAX_ELEMS * 8 + 64)

struct bufs {
	uint8_t *d, *a, *b;	/* aligned bases */
	uint8_t *x, *y;		/* copies of the inputs */
};

static void run_case(struct bufs *bf, uint32_t dtype, uint32_t redop, size_t n,
		     enum layout lay, const unsigned int *off)
{
	size_t bytes = n * dsize(dtype);
	uint8_t *d = bf->d + off[0], *a = bf->a + off[1], *b = bf->b + off[2];
	char what[64];

	switch (lay) {
	case L_DST_IS_A:
		d = a;
		break;
	case L_DST_IS_B:
		d = b;
		break;
	case L_A_IS_B:
		b = a;
		break;
	case L_ALL_SAME:
		d = b = a;
		break;
	default:
		break;
	}
	gen(dtype, a, n);
	if (b != a)
		gen(dtype, b, n);
	if (d != a && d != b)
		memset(d, 0x5a, bytes);
	memcpy(bf->x, a, bytes);
	memcpy(bf->y, b, bytes);
	ccm_reduce(dtype, redop, d, a, b, bytes);
	snprintf(what, sizeof(what), "%s, offsets %u/%u/%u", layout_name[lay],
		 off[0], off[1], off[2]);
	check(dtype, redop, d, bf->x, bf->y, n, what);
}

static void bufs_alloc(struct bufs *bf)
{
	bf->d = malloc(BUF_BYTES);
	bf->a = malloc(BUF_BYTES);
	bf->b = malloc(BUF_BYTES);
	bf->x = malloc(BUF_BYTES);
	bf->y = malloc(BUF_BYTES);
	ASSERT_TRUE(bf->d && bf->a && bf->b && bf->x && bf->y);
}

static void bufs_free(struct bufs *bf)
{
	free(bf->d);
	free(bf->a);
	free(bf->b);
	free(bf->x);
	free(bf->y);
}

/* Every dtype x redop x length x alignment x aliasing, against the reference. */
TEST(reduce_matches_reference)
{
	static const size_t lens[] = { 0, 1, 2, 7, 33, 64, 129, 1000, 1031 };
	struct bufs bf;
	size_t cases = 0;

	rng_seed("reduce_matches_reference");
	bufs_alloc(&bf);
	for (uint32_t dt = 1; dt <= NUM_DTYPES; dt++) {
		for (uint32_t op = 1; op <= NUM_REDOPS; op++) {
			for (size_t li = 0; li < ARRAY_SIZE(lens); li++) {
				for (size_t o = 0; o < ARRAY_SIZE(offsets); o++, cases++)
					run_case(&bf, dt, op, lens[li], L_SEPARATE, offsets[o]);
				for (int lay = L_DST_IS_A; lay < NUM_LAYOUTS; lay++, cases++)
					run_case(&bf, dt, op, lens[li], (enum layout)lay,
						 offsets[(li + (size_t)lay) % 8]);
			}
		}
	}
	bufs_free(&bf);
	ccore_test_log("%zu cases", cases);
}

/* Every pair of special values, so none is left to chance. */
TEST(reduce_special_pairs)
{
	uint8_t x[64 * 64 * 8], y[64 * 64 * 8], d[64 * 64 * 8];

	for (uint32_t dt = 1; dt <= NUM_DTYPES; dt++) {
		struct specials sp = specials_of(dt);
		size_t n = 0;

		for (size_t i = 0; i < sp.n; i++) {
			for (size_t j = 0; j < sp.n; j++, n++) {
				store(dt, x, n, sp.v[i]);
				store(dt, y, n, sp.v[j]);
			}
		}
		for (uint32_t op = 1; op <= NUM_REDOPS; op++) {
			ccm_reduce(dt, op, d, x, y, n * dsize(dt));
			check(dt, op, d, x, y, n, "special pairs");
		}
	}
}

/* max and min are commutative to the bit, zeros and NaNs included. */
TEST(reduce_minmax_commutative)
{
	uint8_t x[64 * 64 * 8], y[64 * 64 * 8], d1[64 * 64 * 8], d2[64 * 64 * 8];

	for (uint32_t dt = DRM_CCORE_DTYPE_F16; dt <= NUM_DTYPES; dt++) {
		struct specials sp = specials_of(dt);
		size_t n = 0, sz = dsize(dt);

		for (size_t i = 0; i < sp.n; i++) {
			for (size_t j = 0; j < sp.n; j++, n++) {
				store(dt, x, n, sp.v[i]);
				store(dt, y, n, sp.v[j]);
			}
		}
		for (uint32_t op = DRM_CCORE_REDOP_MAX; op <= DRM_CCORE_REDOP_MIN; op++) {
			ccm_reduce(dt, op, d1, x, y, n * sz);
			ccm_reduce(dt, op, d2, y, x, n * sz);
			for (size_t i = 0; i < n; i++) {
				uint64_t g1 = load(dt, d1, i), g2 = load(dt, d2, i);

				if (g1 != g2 && !(bits_is_nan(dt, g1) && bits_is_nan(dt, g2)))
					FAIL("%s %s not commutative: %#llx vs %#llx",
					     ccm_dtype_name(dt), ccm_redop_name(op),
					     (unsigned long long)g1, (unsigned long long)g2);
			}
		}
	}
}

/*
 * Bytes around dst stay untouched, also when the length is not a multiple
 * of the element size (the partial element is left alone).
 */
enum { GUARD = 64 };

static void guard_case(uint8_t *buf, uint8_t *a, uint8_t *b, uint32_t dt, uint32_t op,
		       size_t n, unsigned int off)
{
	size_t sz = dsize(dt), extra = sz > 1 ? (off % (sz - 1)) + 1 : 0;
	size_t bytes = n * sz + extra;
	uint8_t *d = buf + GUARD + off;

	memset(buf, 0xa5, GUARD + off + bytes + GUARD);
	gen(dt, a + off, n + 1);
	gen(dt, b + 7 - off, n + 1);
	ccm_reduce(dt, op, d, a + off, b + 7 - off, bytes);
	for (size_t i = 0; i < GUARD + off; i++)
		if (buf[i] != 0xa5)
			FAIL("%s %s: byte %ld before dst written", ccm_dtype_name(dt),
			     ccm_redop_name(op), (long)i - (long)(GUARD + off));
	for (size_t i = n * sz; i < bytes + GUARD; i++)
		if (d[i] != 0xa5)
			FAIL("%s %s, %zu bytes: byte %zu after the last element written",
			     ccm_dtype_name(dt), ccm_redop_name(op), bytes, i - n * sz);
}

TEST(reduce_guard_bytes)
{
	static const size_t lens[] = { 1, 7, 33, 255, 1000 };
	uint8_t *buf = malloc(GUARD + 8 + MAX_ELEMS * 8 + 8 + GUARD);
	uint8_t *a = malloc(MAX_ELEMS * 8 + 16), *b = malloc(MAX_ELEMS * 8 + 16);

	ASSERT_TRUE(buf && a && b);
	rng_seed("reduce_guard_bytes");
	for (uint32_t dt = 1; dt <= NUM_DTYPES; dt++)
		for (uint32_t op = 1; op <= NUM_REDOPS; op++)
			for (size_t li = 0; li < ARRAY_SIZE(lens); li++)
				for (unsigned int off = 0; off < 8; off++)
					guard_case(buf, a, b, dt, op, lens[li], off);
	free(buf);
	free(a);
	free(b);
}

/*
 * Buffers of exactly the reduced size, so that AddressSanitizer catches any
 * read or write past either end (this test finds nothing without it).
 */
TEST(reduce_exact_size_buffers)
{
	rng_seed("reduce_exact_size_buffers");
	for (uint32_t dt = 1; dt <= NUM_DTYPES; dt++) {
		for (uint32_t op = 1; op <= NUM_REDOPS; op++) {
			for (size_t n = 1; n <= 300; n += n < 70 ? 1 : 23) {
				size_t bytes = n * dsize(dt);
				uint8_t *a = malloc(bytes), *b = malloc(bytes), *d = malloc(bytes);
				uint8_t *x = malloc(bytes), *y = malloc(bytes);

				ASSERT_TRUE(a && b && d && x && y);
				gen(dt, a, n);
				gen(dt, b, n);
				memcpy(x, a, bytes);
				memcpy(y, b, bytes);
				ccm_reduce(dt, op, d, a, b, bytes);
				check(dt, op, d, x, y, n, "exact-size buffers");
				free(a);
				free(b);
				free(d);
				free(x);
				free(y);
			}
		}
	}
}

/* An unknown dtype or redop does nothing and does not crash. */
TEST(reduce_unknown_is_noop)
{
	static const uint32_t bad_dtypes[] = { 0, 11, 12, 255, 0x80000000u, 0xffffffffu };
	static const uint32_t bad_ops[] = { 0, 5, 6, 255, 0xffffffffu };
	uint8_t a[64], b[64], d[64], saved[64];

	memset(a, 1, sizeof(a));
	memset(b, 2, sizeof(b));
	memset(d, 0x77, sizeof(d));
	memcpy(saved, d, sizeof(d));
	for (size_t i = 0; i < ARRAY_SIZE(bad_dtypes); i++) {
		for (uint32_t op = 0; op <= NUM_REDOPS + 1; op++)
			ccm_reduce(bad_dtypes[i], op, d, a, b, sizeof(d));
		ASSERT_EQ(ccm_dtype_size(bad_dtypes[i]), 0);
		ASSERT_STR_CONTAINS(ccm_dtype_name(bad_dtypes[i]), "?");
	}
	for (uint32_t dt = 1; dt <= NUM_DTYPES; dt++)
		for (size_t i = 0; i < ARRAY_SIZE(bad_ops); i++)
			ccm_reduce(dt, bad_ops[i], d, a, b, sizeof(d));
	ASSERT_MEM_EQ(d, saved, sizeof(d));
	for (size_t i = 0; i < ARRAY_SIZE(bad_ops); i++)
		ASSERT_TRUE(strcmp(ccm_redop_name(bad_ops[i]), "?") == 0);
	/* A length shorter than one element touches nothing either. */
	for (uint32_t dt = 1; dt <= NUM_DTYPES; dt++)
		for (uint32_t op = 1; op <= NUM_REDOPS; op++)
			ccm_reduce(dt, op, d, a, b, dsize(dt) - 1);
	ASSERT_MEM_EQ(d, saved, sizeof(d));
}

TEST(dtype_sizes_and_names)
{
	static const char *const names[NUM_DTYPES + 1] = {
		"?", "i8", "u8", "i32", "u32", "i64", "u64", "f16", "bf16", "f32", "f64",
	};
	static const char *const ops[NUM_REDOPS + 1] = { "?", "sum", "prod", "max", "min" };

	for (uint32_t dt = 0; dt <= NUM_DTYPES + 1; dt++) {
		ASSERT_U64_EQ(ccm_dtype_size(dt), dt <= NUM_DTYPES ? dsize(dt) : 0);
		/* the public API's sizes (the runtime's own table) are the device's */
		ASSERT_U64_EQ(ccore_dtype_size((enum ccore_dtype)dt), ccm_dtype_size(dt));
		if (dt > NUM_DTYPES)
			continue;
		if (strcmp(ccm_dtype_name(dt), names[dt]) != 0)
			FAIL("dtype %u is named \"%s\", want \"%s\"", dt, ccm_dtype_name(dt),
			     names[dt]);
	}
	for (uint32_t op = 0; op <= NUM_REDOPS; op++)
		if (strcmp(ccm_redop_name(op), ops[op]) != 0)
			FAIL("redop %u is named \"%s\", want \"%s\"", op, ccm_redop_name(op),
			     ops[op]);
}

/* --- conversions ----------------------------------------------------------- */

/* A NaN widened to f32 is quiet and keeps its sign and payload. */
static void check_nan_widened(uint16_t h, uint32_t got, int payload_shift, uint32_t payload_mask)
{
	uint32_t want_payload = ((uint32_t)h & payload_mask) << payload_shift;

	if (!bits_is_quiet_nan(DRM_CCORE_DTYPE_F32, got) ||
	    (got >> 31) != (uint32_t)(h >> 15) ||
	    (got & (payload_mask << payload_shift) & ~0x00400000u) !=
	    (want_payload & ~0x00400000u))
		FAIL("NaN %#x widened to %#x", h, got);
}

TEST(f16_to_f32_exhaustive)
{
	for (uint32_t i = 0; i < 0x10000; i++) {
		uint16_t h = (uint16_t)i, back;
		uint32_t got = f32_bits(ccm_f16_to_f32(h));
		float ref = (float)f16_from_bits(h);

		back = ccm_f32_to_f16(f32_from_bits(got));
		if (ref != ref) {
			check_nan_widened(h, got, 13, 0x3ff);
			if (back != (h | 0x200))
				FAIL("NaN %#x came back as %#x", h, back);
			continue;
		}
		if (got != f32_bits(ref))
			FAIL("f16 %#x: got f32 %#x, want %#x", h, got, f32_bits(ref));
		if (back != h)
			FAIL("f16 %#x -> f32 %#x -> f16 %#x", h, got, back);
	}
}

TEST(bf16_to_f32_exhaustive)
{
	for (uint32_t i = 0; i < 0x10000; i++) {
		uint16_t h = (uint16_t)i, back;
		uint32_t got = f32_bits(ccm_bf16_to_f32(h));
		double ref = ref_bf16_value(h);

		back = ccm_f32_to_bf16(f32_from_bits(got));
		if (ref != ref) {
			check_nan_widened(h, got, 16, 0x7f);
			if (back != (h | 0x40))
				FAIL("NaN %#x came back as %#x", h, back);
			continue;
		}
		if ((double)f32_from_bits(got) != ref ||
		    !signbit(f32_from_bits(got)) != !signbit(ref))
			FAIL("bf16 %#x: got f32 %#x (%a), want %a", h, got,
			     (double)f32_from_bits(got), ref);
		if (back != h)
			FAIL("bf16 %#x -> f32 %#x -> bf16 %#x", h, got, back);
	}
}

/* One f32 to f16 conversion against _Float16 and against ref_round(). */
static void check_to_f16(float f)
{
	uint16_t got = ccm_f32_to_f16(f), want = f16_bits((_Float16)f);
	double r = ref_round(f, 11, -14, 15);

	if (f != f) {
		if (!bits_is_quiet_nan(DRM_CCORE_DTYPE_F16, got))
			FAIL("f32 NaN %#x gave f16 %#x", f32_bits(f), got);
		return;
	}
	if (got != want)
		FAIL("f32 %#x (%a): got f16 %#x, _Float16 says %#x", f32_bits(f), (double)f,
		     got, want);
	if (ref_f16_value(got) != r || !!signbit(r) != (got >> 15))
		FAIL("f32 %#x (%a): got f16 %#x, rounding says %a", f32_bits(f), (double)f,
		     got, r);
}

static void check_to_bf16(float f)
{
	uint16_t got = ccm_f32_to_bf16(f);

	if (f != f) {
		if (!bits_is_quiet_nan(DRM_CCORE_DTYPE_BF16, got))
			FAIL("f32 NaN %#x gave bf16 %#x", f32_bits(f), got);
		return;
	}
	if (got != ref_f32_to_bf16(f))
		FAIL("f32 %#x (%a): got bf16 %#x, want %#x", f32_bits(f), (double)f, got,
		     ref_f32_to_bf16(f));
}

/*
 * Every midpoint between neighbouring finite values of the 16-bit format
 * (a tie, which must go to the even one) and the floats just either side
 * of it, including the one between the largest finite value and the next
 * power of two (which ties to Inf).
 */
static void check_ties(double (*value)(uint16_t), void (*conv)(float), uint16_t max_finite)
{
	for (uint32_t s = 0; s < 2; s++) {
		for (uint32_t m = 0; m <= max_finite; m++) {
			uint16_t h = (uint16_t)(s << 15 | m);
			double lo = value(h), hi;
			float mid;

			if (m < max_finite)
				hi = value((uint16_t)(h + 1));
			else	/* the next power of two, beyond the format */
				hi = 2 * lo - value((uint16_t)(h - 1));
			mid = (float)((lo + hi) / 2);	/* exact */
			if ((double)mid != (lo + hi) / 2)
				FAIL("midpoint of %#x is not a float", h);
			conv(mid);
			conv(nextafterf(mid, INFINITY));
			conv(nextafterf(mid, -INFINITY));
			conv((float)lo);
		}
	}
}

static void check_random_f32(void (*conv)(float), size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t u = (uint32_t)rng_next();

		/* half of them any pattern, half near the 16-bit formats' range */
		if (i & 1)
			u = (u & 0x81ffffff) | (uint32_t)(96 + rng_below(64)) << 23;
		conv(f32_from_bits(u));
	}
}

/*
 * What every 16-bit format's rounding from f32 is checked on (@what seeds
 * the random part): the ties, random floats, f32 subnormals, both
 * infinities and a signalling NaN.
 */
static void check_rounding(const char *what, double (*value)(uint16_t), void (*conv)(float),
			   uint16_t max_finite)
{
	static const uint32_t special[] = {
		0x00000001, 0x807fffff,		/* f32 subnormals */
		0x7f800000, 0xff800000,		/* Inf */
		0x7fa00000,			/* signalling NaN */
	};

	rng_seed(what);
	check_ties(value, conv, max_finite);
	check_random_f32(conv, 1u << 20);
	for (size_t i = 0; i < ARRAY_SIZE(special); i++)
		conv(f32_from_bits(special[i]));
}

TEST(f32_to_f16_rounding)
{
	check_rounding("f32_to_f16_rounding", ref_f16_value, check_to_f16, 0x7bff);
	/* the overflow threshold */
	check_to_f16(65519.99f);
	check_to_f16(65520.0f);
}

TEST(f32_to_bf16_rounding)
{
	check_rounding("f32_to_bf16_rounding", ref_bf16_value, check_to_bf16, 0x7f7f);
	check_to_bf16(f32_from_bits(0x7f7fffff));	/* rounds up to Inf */
	check_to_bf16(f32_from_bits(0x7f7f7fff));	/* stays finite */
	check_to_bf16(f32_from_bits(0xffffffff));	/* NaN that rounding would wrap */
}
