// SPDX-License-Identifier: GPL-2.0
/*
 * ccm_reduce: the arithmetic of REDUCE descriptors, dst[i] = a[i] (op) b[i].
 *
 * This runs on every byte of every collective, so each (dtype, redop) pair
 * gets its own loop, generated from one macro and picked once per call from
 * a table.  The loop goes a block at a time: it loads the block's elements
 * of a and b with memcpy() (safe at any alignment), computes into a local
 * array and only then stores that to dst.  The fixed trip count and the
 * private array let the compiler vectorize even at -O2, whose cost model
 * adds no run-time alias checks, and because a block of dst is written
 * after the same block of a and b was read, dst may be a or b.  Leftover
 * elements take a scalar tail.
 *
 * The same file is built into the kernel module with the FPU enabled around
 * it, so it uses only the ccm_os.h types, __builtin_memcpy() and float/double
 * arithmetic (no libm).  Floating-point results assume the default
 * round-to-nearest-even mode with denormals enabled, which is what both
 * userspace and kernel_fpu_begin() provide.
 *
 * Semantics shared by all types:
 *  - integers wrap (two's complement); signed sum and product are done in
 *    unsigned arithmetic, which gives the same bits without overflow UB;
 *  - f16 and bf16 are widened to f32, computed, and rounded back to nearest
 *    even.  For one sum or product this double rounding is harmless (f32
 *    has at least 2p + 2 significand bits for both), so the result is the
 *    correctly rounded one;
 *  - max and min propagate NaN: if either operand is a NaN the result is a
 *    quiet NaN (a's if a is a NaN, else b's, quieted).  Silently dropping
 *    a NaN would hide a diverged training step behind a plausible number;
 *  - otherwise max and min order -0 below +0 (IEEE 754-2019 maximum and
 *    minimum), so both are commutative to the bit and every reduction
 *    schedule gives the same answer (up to which NaN payload survives).
 */
#include "ccm.h"

/*
 * Every copy here is small and of constant size.  The builtin makes sure
 * each becomes a plain (unaligned) move even in -ffreestanding builds,
 * such as x86-32 kernels, where a memcpy() call per element would be ruinous.
 */
#define ccm_memcpy(d, s, n) __builtin_memcpy(d, s, n)

/*
 * Bytes per block.  256 amortises the extra pass through the local array
 * (f32 sum on cached data: 19 GB/s against 13 with 64) and is still a
 * modest kernel stack frame.
 */
#define CCM_RED_BLOCK 256

/* --- bit casts ------------------------------------------------------------ */

static inline u32 f32_bits(float f)
{
	u32 u;

	ccm_memcpy(&u, &f, sizeof(u));
	return u;
}

static inline float f32_from_bits(u32 u)
{
	float f;

	ccm_memcpy(&f, &u, sizeof(f));
	return f;
}

/* --- half-precision conversions ------------------------------------------
 * The 16-bit formats are handled in u32 lanes (value in the low 16 bits)
 * and without branches, so that the loops below vectorize with plain
 * 32-bit integer and float vector instructions.  The widening helpers leave
 * a NaN's quiet bit alone: arithmetic quiets NaNs anyway, and the public
 * conversions below quiet explicitly.
 */

#define F32_ABS		0x7fffffffu
#define F32_INF		0x7f800000u
#define F32_QUIET	0x00400000u

/*
 * mask ? a : b for a mask of all ones or all zeros.  With ?: the compiler
 * moves a floating-point operation into the branch that uses it and then
 * (floating point may trap) refuses to turn the branch back into a select,
 * which stops vectorization.  Bit selects keep the code straight-line.
 */
static inline u32 mask32(bool cond)
{
	return 0u - (u32)cond;
}

static inline u32 sel32(u32 mask, u32 a, u32 b)
{
	return (a & mask) | (b & ~mask);
}

/* binary16 (1 sign, 5 exponent bits biased by 15, 10 fraction bits). */
static inline u32 f16_widen(u32 h)
{
	u32 sign = (h & 0x8000) << 16;
	u32 e = h & 0x7c00;
	u32 em = (h & 0x7fff) << 13;	/* exponent and fraction, f32 places */
	u32 normal = em + (112u << 23);	/* rebias by 127 - 15 */
	u32 infnan = em | F32_INF;
	/*
	 * A subnormal m * 2^-24 is a normal f32: (1 + m/1024) * 2^-14 minus
	 * 2^-14, an exact subtraction.  Zero falls out of the same formula.
	 */
	u32 sub = f32_bits(f32_from_bits(em | (113u << 23)) -
			   f32_from_bits(113u << 23));
	u32 r;

	r = sel32(mask32(e == 0), sub, normal);
	r = sel32(mask32(e == 0x7c00), infnan, r);
	return sign | r;
}

static inline u32 f16_narrow(u32 x)
{
	u32 sign = (x >> 16) & 0x8000;
	u32 ax = x & F32_ABS;
	/* NaN: keep the top payload bits and set the quiet bit. */
	u32 nan = 0x7e00 | ((ax >> 13) & 0x3ff);
	/* Rebias (112 << 23), round to nearest even at bit 13. */
	u32 normal = (ax - (112u << 23) + 0x0fff + ((ax >> 13) & 1)) >> 13;
	/*
	 * Below 2^-14 the result is subnormal, in units of 2^-24.  Adding
	 * 0.5 puts the value where one f32 ulp is 2^-24, so the FPU's own
	 * round-to-nearest-even does the rounding; what remains in the
	 * fraction is the f16 result (0x400 means it rounded up to normal).
	 */
	u32 sub = f32_bits(f32_from_bits(ax) + 0.5f) - 0x3f000000u;
	u32 r;

	r = sel32(mask32(ax < 0x38800000u), sub, normal);
	/* 65520 (0x477ff000) lies halfway past 65504 and ties to Inf. */
	r = sel32(mask32(ax >= 0x477ff000u), 0x7c00, r);
	r = sel32(mask32(ax > F32_INF), nan, r);
	return sign | r;
}

/* bfloat16 is the top half of a binary32: widening is exact. */
static inline u32 bf16_widen(u32 h)
{
	return h << 16;
}

static inline u32 bf16_narrow(u32 x)
{
	/* NaN: the top half, quieted (rounding could carry into the sign). */
	u32 nan = (x >> 16) | 0x0040;
	/*
	 * Round to nearest even on the low 16 bits.  A carry out of the
	 * fraction bumps the exponent, which is exactly right, including
	 * the overflow of the largest finite values to Inf.
	 */
	u32 r = (x + 0x7fff + ((x >> 16) & 1)) >> 16;

	return (x & F32_ABS) > F32_INF ? nan : r;
}

/* --- element operations ----------------------------------------------------
 * One inline function per (type, op); the block loop below is generic.
 * Integer sum and product are the same bits for signed and unsigned types;
 * 1u * keeps a product unsigned where the operands would promote to int.
 */

static inline u8 sum_u8(u8 x, u8 y) { return (u8)(x + y); }
static inline u8 prod_u8(u8 x, u8 y) { return (u8)(1u * x * y); }
static inline u8 max_u8(u8 x, u8 y) { return x > y ? x : y; }
static inline u8 min_u8(u8 x, u8 y) { return x < y ? x : y; }
/* Flipping the sign bit maps i8 order onto u8 order. */
static inline u8 max_i8(u8 x, u8 y) { return (x ^ 0x80) > (y ^ 0x80) ? x : y; }
static inline u8 min_i8(u8 x, u8 y) { return (x ^ 0x80) < (y ^ 0x80) ? x : y; }

static inline u32 sum_u32(u32 x, u32 y) { return x + y; }
static inline u32 prod_u32(u32 x, u32 y) { return (u32)(1u * x * y); }
static inline u32 max_u32(u32 x, u32 y) { return x > y ? x : y; }
static inline u32 min_u32(u32 x, u32 y) { return x < y ? x : y; }
static inline s32 max_s32(s32 x, s32 y) { return x > y ? x : y; }
static inline s32 min_s32(s32 x, s32 y) { return x < y ? x : y; }

static inline u64 sum_u64(u64 x, u64 y) { return x + y; }
static inline u64 prod_u64(u64 x, u64 y) { return x * y; }
static inline u64 max_u64(u64 x, u64 y) { return x > y ? x : y; }
static inline u64 min_u64(u64 x, u64 y) { return x < y ? x : y; }
static inline s64 max_s64(s64 x, s64 y) { return x > y ? x : y; }
static inline s64 min_s64(s64 x, s64 y) { return x < y ? x : y; }

static inline float sum_f32(float x, float y) { return x + y; }
static inline float prod_f32(float x, float y) { return x * y; }
static inline double sum_f64(double x, double y) { return x + y; }
static inline double prod_f64(double x, double y) { return x * y; }

/*
 * Float max/min work on the bit patterns, loaded as integers: a key maps
 * sign-magnitude onto integer order (negatives reversed below positives).
 * That is a total order with -0 < +0, so there is no float compare and no
 * zero special case.  NaNs are checked first; they would otherwise sort to
 * the ends.  f32 and f64 use signed keys, which vector units compare
 * directly; f16 and bf16 use u16 keys (there is no s16 type here).
 */
static inline s32 f32_key(s32 x) { return x ^ (-(s32)(x < 0) & 0x7fffffff); }
static inline s64 f64_key(s64 x) { return x ^ (-(s64)(x < 0) & 0x7fffffffffffffffll); }
/* f16 and bf16 share the sign-magnitude layout, so one key serves both. */
static inline u16 f16_key(u16 x) { return (x & 0x8000) ? (u16)~x : (u16)(x | 0x8000); }

/* A NaN operand wins, quieted; @x first, so both NaN gives x's payload. */
static inline u16 nanpick16(u16 x, u16 y, u16 r, u16 inf, u16 quiet)
{
	r = (y & 0x7fff) > inf ? y | quiet : r;
	return (x & 0x7fff) > inf ? x | quiet : r;
}

static inline s32 nanpick32(s32 x, s32 y, s32 r)
{
	r = (y & 0x7fffffff) > 0x7f800000 ? y | 0x00400000 : r;
	return (x & 0x7fffffff) > 0x7f800000 ? x | 0x00400000 : r;
}

static inline s64 nanpick64(s64 x, s64 y, s64 r)
{
	const s64 mag = 0x7fffffffffffffffll, inf = 0x7ff0000000000000ll;
	const s64 quiet = 0x0008000000000000ll;

	r = (y & mag) > inf ? y | quiet : r;
	return (x & mag) > inf ? x | quiet : r;
}

static inline u16 max_f16(u16 x, u16 y)
{
	return nanpick16(x, y, f16_key(x) >= f16_key(y) ? x : y, 0x7c00, 0x0200);
}

static inline u16 min_f16(u16 x, u16 y)
{
	return nanpick16(x, y, f16_key(x) <= f16_key(y) ? x : y, 0x7c00, 0x0200);
}

static inline u16 max_bf16(u16 x, u16 y)
{
	return nanpick16(x, y, f16_key(x) >= f16_key(y) ? x : y, 0x7f80, 0x0040);
}

static inline u16 min_bf16(u16 x, u16 y)
{
	return nanpick16(x, y, f16_key(x) <= f16_key(y) ? x : y, 0x7f80, 0x0040);
}

static inline s32 max_f32(s32 x, s32 y)
{
	return nanpick32(x, y, f32_key(x) >= f32_key(y) ? x : y);
}

static inline s32 min_f32(s32 x, s32 y)
{
	return nanpick32(x, y, f32_key(x) <= f32_key(y) ? x : y);
}

static inline s64 max_f64(s64 x, s64 y)
{
	return nanpick64(x, y, f64_key(x) >= f64_key(y) ? x : y);
}

static inline s64 min_f64(s64 x, s64 y)
{
	return nanpick64(x, y, f64_key(x) <= f64_key(y) ? x : y);
}

static inline u32 sum_f16(u32 x, u32 y)
{
	return f16_narrow(f32_bits(f32_from_bits(f16_widen(x)) +
				   f32_from_bits(f16_widen(y))));
}

static inline u32 prod_f16(u32 x, u32 y)
{
	return f16_narrow(f32_bits(f32_from_bits(f16_widen(x)) *
				   f32_from_bits(f16_widen(y))));
}

static inline u32 sum_bf16(u32 x, u32 y)
{
	return bf16_narrow(f32_bits(f32_from_bits(bf16_widen(x)) +
				    f32_from_bits(bf16_widen(y))));
}

static inline u32 prod_bf16(u32 x, u32 y)
{
	return bf16_narrow(f32_bits(f32_from_bits(bf16_widen(x)) *
				    f32_from_bits(bf16_widen(y))));
}

/*
 * CCM_PAIR_OP() - op2_<op>: apply a 16-bit op to both halves of a u32
 *
 * Two 16-bit elements per 32-bit lane avoid the pack/unpack shuffles that
 * narrowing u32 results back to u16 lanes costs.  Whatever the byte order,
 * the low half of d comes from the low halves of a and b.
 */
#define CCM_PAIR_OP(op)							\
static inline u32 op2_##op(u32 x, u32 y)				\
{									\
	return op(x & 0xffff, y & 0xffff) | op(x >> 16, y >> 16) << 16;	\
}

CCM_PAIR_OP(sum_f16)
CCM_PAIR_OP(prod_f16)
CCM_PAIR_OP(sum_bf16)
CCM_PAIR_OP(prod_bf16)

/* --- loops ------------------------------------------------------------------ */

typedef void (*ccm_reduce_fn)(u8 *d, const u8 *a, const u8 *b, u64 n);

/*
 * CCM_REDUCE_LOOP() - define red_<op>: @n elements of type @T, d = op(a, b)
 *
 * Both operand blocks are loaded before the result block is stored, so d
 * may be a or b.  The constant-size copies compile to plain (unaligned)
 * vector moves.
 */
#define CCM_REDUCE_LOOP(T, op)						\
static void red_##op(u8 *d, const u8 *a, const u8 *b, u64 n)		\
{									\
	T x[CCM_RED_BLOCK / sizeof(T)], y;				\
	const u64 k = CCM_RED_BLOCK / sizeof(T);			\
	u64 i;								\
									\
	for (; n >= k; n -= k) {					\
		for (i = 0; i < k; i++) {				\
			ccm_memcpy(&x[i], a + i * sizeof(T), sizeof(T)); \
			ccm_memcpy(&y, b + i * sizeof(T), sizeof(T));	\
			x[i] = op(x[i], y);				\
		}							\
		ccm_memcpy(d, x, sizeof(x));				\
		a += sizeof(x);						\
		b += sizeof(x);						\
		d += sizeof(x);						\
	}								\
	for (; n; n--) {						\
		ccm_memcpy(&x[0], a, sizeof(T));			\
		ccm_memcpy(&y, b, sizeof(T));				\
		x[0] = op(x[0], y);					\
		ccm_memcpy(d, &x[0], sizeof(T));			\
		a += sizeof(T);						\
		b += sizeof(T);						\
		d += sizeof(T);						\
	}								\
}

/*
 * CCM_REDUCE_PAIRS() - define red_<op> for a 16-bit float op: pairs of
 * elements go through red_op2_<op>, an odd last element on its own.
 */
#define CCM_REDUCE_PAIRS(op)						\
CCM_REDUCE_LOOP(u32, op2_##op)						\
static void red_##op(u8 *d, const u8 *a, const u8 *b, u64 n)		\
{									\
	u64 last;							\
	u16 x, y;							\
									\
	red_op2_##op(d, a, b, n / 2);					\
	if (!(n & 1))							\
		return;							\
	last = (n - 1) * sizeof(u16);					\
	ccm_memcpy(&x, a + last, sizeof(x));				\
	ccm_memcpy(&y, b + last, sizeof(y));				\
	x = (u16)op(x, y);						\
	ccm_memcpy(d + last, &x, sizeof(x));				\
}

CCM_REDUCE_LOOP(u8, sum_u8)
CCM_REDUCE_LOOP(u8, prod_u8)
CCM_REDUCE_LOOP(u8, max_u8)
CCM_REDUCE_LOOP(u8, min_u8)
CCM_REDUCE_LOOP(u8, max_i8)
CCM_REDUCE_LOOP(u8, min_i8)
CCM_REDUCE_LOOP(u32, sum_u32)
CCM_REDUCE_LOOP(u32, prod_u32)
CCM_REDUCE_LOOP(u32, max_u32)
CCM_REDUCE_LOOP(u32, min_u32)
CCM_REDUCE_LOOP(s32, max_s32)
CCM_REDUCE_LOOP(s32, min_s32)
CCM_REDUCE_LOOP(u64, sum_u64)
CCM_REDUCE_LOOP(u64, prod_u64)
CCM_REDUCE_LOOP(u64, max_u64)
CCM_REDUCE_LOOP(u64, min_u64)
CCM_REDUCE_LOOP(s64, max_s64)
CCM_REDUCE_LOOP(s64, min_s64)
CCM_REDUCE_PAIRS(sum_f16)
CCM_REDUCE_PAIRS(prod_f16)
CCM_REDUCE_LOOP(u16, max_f16)
CCM_REDUCE_LOOP(u16, min_f16)
CCM_REDUCE_PAIRS(sum_bf16)
CCM_REDUCE_PAIRS(prod_bf16)
CCM_REDUCE_LOOP(u16, max_bf16)
CCM_REDUCE_LOOP(u16, min_bf16)
CCM_REDUCE_LOOP(float, sum_f32)
CCM_REDUCE_LOOP(float, prod_f32)
CCM_REDUCE_LOOP(s32, max_f32)
CCM_REDUCE_LOOP(s32, min_f32)
CCM_REDUCE_LOOP(double, sum_f64)
CCM_REDUCE_LOOP(double, prod_f64)
CCM_REDUCE_LOOP(s64, max_f64)
CCM_REDUCE_LOOP(s64, min_f64)

#define CCM_NUM_DTYPES (DRM_CCORE_DTYPE_F64 + 1)
#define CCM_NUM_REDOPS (DRM_CCORE_REDOP_MIN + 1)

#define CCM_REDOPS(sum, prod, max, min) {				\
	[DRM_CCORE_REDOP_SUM] = red_##sum,				\
	[DRM_CCORE_REDOP_PROD] = red_##prod,				\
	[DRM_CCORE_REDOP_MAX] = red_##max,				\
	[DRM_CCORE_REDOP_MIN] = red_##min,				\
}

/* Holes (index 0, future enums) stay NULL and make ccm_reduce() a no-op. */
static const ccm_reduce_fn ccm_reduce_table[CCM_NUM_DTYPES][CCM_NUM_REDOPS] = {
	[DRM_CCORE_DTYPE_I8] = CCM_REDOPS(sum_u8, prod_u8, max_i8, min_i8),
	[DRM_CCORE_DTYPE_U8] = CCM_REDOPS(sum_u8, prod_u8, max_u8, min_u8),
	[DRM_CCORE_DTYPE_I32] = CCM_REDOPS(sum_u32, prod_u32, max_s32, min_s32),
	[DRM_CCORE_DTYPE_U32] = CCM_REDOPS(sum_u32, prod_u32, max_u32, min_u32),
	[DRM_CCORE_DTYPE_I64] = CCM_REDOPS(sum_u64, prod_u64, max_s64, min_s64),
	[DRM_CCORE_DTYPE_U64] = CCM_REDOPS(sum_u64, prod_u64, max_u64, min_u64),
	[DRM_CCORE_DTYPE_F16] = CCM_REDOPS(sum_f16, prod_f16, max_f16, min_f16),
	[DRM_CCORE_DTYPE_BF16] = CCM_REDOPS(sum_bf16, prod_bf16, max_bf16, min_bf16),
	[DRM_CCORE_DTYPE_F32] = CCM_REDOPS(sum_f32, prod_f32, max_f32, min_f32),
	[DRM_CCORE_DTYPE_F64] = CCM_REDOPS(sum_f64, prod_f64, max_f64, min_f64),
};

/* --- public ------------------------------------------------------------------ */

u32 ccm_dtype_size(u32 dtype)
{
	switch (dtype) {
	case DRM_CCORE_DTYPE_I8:
	case DRM_CCORE_DTYPE_U8:
		return 1;
	case DRM_CCORE_DTYPE_F16:
	case DRM_CCORE_DTYPE_BF16:
		return 2;
	case DRM_CCORE_DTYPE_I32:
	case DRM_CCORE_DTYPE_U32:
	case DRM_CCORE_DTYPE_F32:
		return 4;
	case DRM_CCORE_DTYPE_I64:
	case DRM_CCORE_DTYPE_U64:
	case DRM_CCORE_DTYPE_F64:
		return 8;
	}
	return 0;
}

const char *ccm_dtype_name(u32 dtype)
{
	switch (dtype) {
	case DRM_CCORE_DTYPE_I8: return "i8";
	case DRM_CCORE_DTYPE_U8: return "u8";
	case DRM_CCORE_DTYPE_I32: return "i32";
	case DRM_CCORE_DTYPE_U32: return "u32";
	case DRM_CCORE_DTYPE_I64: return "i64";
	case DRM_CCORE_DTYPE_U64: return "u64";
	case DRM_CCORE_DTYPE_F16: return "f16";
	case DRM_CCORE_DTYPE_BF16: return "bf16";
	case DRM_CCORE_DTYPE_F32: return "f32";
	case DRM_CCORE_DTYPE_F64: return "f64";
	}
	return "?";
}

const char *ccm_redop_name(u32 redop)
{
	switch (redop) {
	case DRM_CCORE_REDOP_SUM: return "sum";
	case DRM_CCORE_REDOP_PROD: return "prod";
	case DRM_CCORE_REDOP_MAX: return "max";
	case DRM_CCORE_REDOP_MIN: return "min";
	}
	return "?";
}

/*
 * Reduce bytes / size elements; a trailing partial element is left alone
 * (verification rejects such lengths before they get here).  An unknown
 * dtype or redop does nothing rather than trusting the caller.
 */
void ccm_reduce(u32 dtype, u32 redop, void *dst, const void *a, const void *b, u64 bytes)
{
	ccm_reduce_fn fn;

	if (dtype >= CCM_NUM_DTYPES || redop >= CCM_NUM_REDOPS)
		return;
	fn = ccm_reduce_table[dtype][redop];
	if (fn)
		fn(dst, a, b, bytes / ccm_dtype_size(dtype));
}

/* The public conversions also quiet a signalling NaN. */
static inline u32 f32_quiet(u32 x)
{
	return (x & F32_ABS) > F32_INF ? x | F32_QUIET : x;
}

float ccm_f16_to_f32(u16 h)
{
	return f32_from_bits(f32_quiet(f16_widen(h)));
}

u16 ccm_f32_to_f16(float f)
{
	return (u16)f16_narrow(f32_bits(f));
}

float ccm_bf16_to_f32(u16 h)
{
	return f32_from_bits(f32_quiet(bf16_widen(h)));
}

u16 ccm_f32_to_bf16(float f)
{
	return (u16)bf16_narrow(f32_bits(f));
}
