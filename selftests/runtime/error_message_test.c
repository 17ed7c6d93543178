// SPDX-License-Identifier: GPL-2.0
/*
 * Error messages are never cut off: ccore_last_error() holds a message
 * whole however long the user text it quotes ($CCORE_SIM, file names),
 * a message may quote the last one, and the sim's configuration messages
 * end with their explanation.  And the ideal setting's fabric (one tier,
 * ranks anywhere) takes any rank count up to 1024, primes included.
 */
#include "ccore_test.h"
#include "ccore_internal.h"
#include "timed_world.h"
#include "sim/sim_costs.h"

#include <stdlib.h>
#include <string.h>

/* "hbm=1G," @times over: valid keys that make $CCORE_SIM long */
static char *padding(int times, const char *tail)
{
	size_t len = (size_t)times * 7 + strlen(tail) + 1;
	char *s = malloc(len);

	if (!s)
		FAIL("out of memory");
	s[0] = '\0';
	for (int i = 0; i < times; i++)
		strcat(s, "hbm=1G,");
	strcat(s, tail);
	return s;
}

static void assert_ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	if (n < k || strcmp(s + n - k, tail))
		FAIL("message of %zu characters does not end with \"%s\": ...%s", n, tail,
		     n > 80 ? s + n - 80 : s);
}

TEST(long_message_is_whole)
{
	char *long_text = padding(600, "END");	/* 4203 characters */

	ASSERT_EQ(ccore_error(-EINVAL, "bad: %s", long_text), -EINVAL);
	ASSERT_EQ(strlen(ccore_last_error()), strlen(long_text) + 5);
	assert_ends_with(ccore_last_error(), "END");
	/* a message quoting the last one (long) keeps both whole */
	ccore_error(-EINVAL, "outer: %s: tail", ccore_last_error());
	ASSERT_EQ(strlen(ccore_last_error()), strlen(long_text) + 18);
	assert_ends_with(ccore_last_error(), "END: tail");
	/* a short one after a long one */
	ccore_error(-EINVAL, "short");
	ASSERT_TRUE(!strcmp(ccore_last_error(), "short"));
	ccore_error(-EINVAL, "quoting short: %s", ccore_last_error());
	ASSERT_TRUE(!strcmp(ccore_last_error(), "quoting short: short"));
	free(long_text);
}

/* A bad fabric shape behind a long $CCORE_SIM: the message ends with why. */
TEST(sim_configuration_message_is_whole)
{
	struct ccore_topology t = { 1, 8, 1 };
	struct ccore_comm *c[8];
	char *sim = padding(150, "torus=2x1");

	setenv("CCORE_SIM", sim, 1);
	ASSERT_EQ(ccore_comm_init_all(&t, c), -EINVAL);
	unsetenv("CCORE_SIM");
	ASSERT_STR_CONTAINS(ccore_last_error(), sim);
	assert_ends_with(ccore_last_error(), "torus 2x1 does not hold devices=8");
	free(sim);
}

/* A long bad value is quoted shortened, the explanation after it whole. */
TEST(sim_key_message_keeps_its_explanation)
{
	struct ccore_topology t = { 1, 2, 1 };
	struct ccore_comm *c[2];
	char value[400];
	char sim[sizeof(value) + 8];

	memset(value, '7', sizeof(value) - 1);
	value[sizeof(value) - 1] = '\0';
	snprintf(sim, sizeof(sim), "sems=%s", value);
	setenv("CCORE_SIM", sim, 1);
	ASSERT_EQ(ccore_comm_init_all(&t, c), -EINVAL);
	unsetenv("CCORE_SIM");
	assert_ends_with(ccore_last_error(), "(semaphores per logical core)");
	ASSERT_STR_CONTAINS(ccore_last_error(), "7777...: expected a number from 8 to 65535");
}

/* More than 64 devices per node only in the ideal setting (nothing to route). */
TEST(devices_beyond_64_need_the_ideal_setting)
{
	struct ccore_topology t = { 1, 65, 1 };
	struct ccore_comm **c = calloc(65, sizeof(*c));

	setenv("CCORE_SIM", "timed=1,virtual=1", 1);
	ASSERT_EQ(ccore_comm_init_all(&t, c), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(),
			    "devices=65: at most 64 per node (the ideal setting, ideal=1, takes up to 255)");
	unsetenv("CCORE_SIM");
	free(c);
}

/* The ideal fabric for n ranks holds n, within the model's limits, for every n. */
TEST(ideal_layout_for_every_rank_count)
{
	uint32_t d, r;

	for (uint32_t n = 1; n <= TUNE_IDEAL_MAX_RANKS; n++) {
		uint32_t total = tune_ideal_layout(n, &d, &r);

		if (total < n || total != d * r || d > 255 || r > 64 || total - n >= r)
			FAIL("n=%u: %u devices x %u ranks = %u", n, d, r, total);
	}
	ASSERT_EQ(tune_ideal_layout(0, &d, &r), 0u);
	ASSERT_EQ(tune_ideal_layout(TUNE_IDEAL_MAX_RANKS + 1, &d, &r), 0u);
	ASSERT_EQ(tune_ideal_layout(128, &d, &r), 128u);
	ASSERT_EQ(d, 128u);
	ASSERT_EQ(tune_ideal_layout(1021, &d, &r), 1025u);	/* a prime: split */
}

/* The ideal timed model runs at 128, 257 (a prime past 255 devices) and 1024 ranks. */
TEST(ideal_world_at_large_rank_counts)
{
	static const int ns[] = { 128, 257, 1024 };
	struct timed_world *w = calloc(1, sizeof(*w));

	ASSERT_TRUE(w != NULL);
	for (unsigned int i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		uint64_t t0;
		double us, want;

		timed_world_open_ideal(w, ns[i], "alpha_node_ns=2000,bw_node_gbps=400", 4096);
		ASSERT_EQ(w->n, ns[i]);
		setenv("CCORE_ALGO", "ring", 1);
		t0 = timed_world_now_ps(w);
		ASSERT_EQ(ccore_group_start(), 0);
		for (int r = 0; r < w->n; r++)
			ASSERT_EQ(timed_post(ccore_op_allgather, w->sb[r], w->rb[r], 1, w->c[r]), 0);
		ASSERT_EQ(ccore_group_end(), 0);
		for (int r = 0; r < w->n; r++)
			ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(w->c[r])), 0);
		unsetenv("CCORE_ALGO");
		us = (double)(timed_world_now_ps(w) - t0) / 1e6;
		/* ring AllGather of one f32 per rank: (n-1)(α + 4 B/BW) */
		want = (ns[i] - 1) * (2.0 + 4 / 50e3);
		if (us < want * 0.999 || us > want * 1.001)
			FAIL("%d ranks: %.4f us, want %.4f", ns[i], us, want);
		timed_world_close(w);
	}
	free(w);
}
