// SPDX-License-Identifier: GPL-2.0
/*
 * Executables (runtime/exec/): the text description and the .cce bytes
 * round-trip; every validation rule rejects its case with a message naming
 * the field (and the description's line); malformed bytes (truncated,
 * garbled, patched fields) are rejected without a read out of bounds.
 */
#include <errno.h>
#include <time.h>

#include "ccore_test.h"
#include "ccore_verifiable.h"
#include "exec/exe.h"
#include "exec/exe_format.h"

#define HEAD "topology nodes=1 devices=2 ranks-per-device=2\n"

/* 4 ranks, every part of the format, valid. */
static const char *const sample =
	HEAD
	"tensor x 8K init=pattern dtype=f32 redop=sum\n"
	"tensor y 32K\n"
	"tensor w 4K init=index dtype=i32\n"
	"collective ag allgather dtype=f32 count=2K stream=0 send=x recv=y groups=all\n"
	"collective ar allreduce dtype=f32 count=1K redop=sum stream=1 send=x recv=x groups={{0,2},{1,3}}\n"
	"collective bc broadcast dtype=i32 count=512 root=1 stream=1 send=w recv=y+8K groups={{3,2,1,0}}\n"
	"collective p2p sendrecv dtype=i32 count=16 root=0 stream=2 send=w recv=w+2K groups={{0,1},{2,3}}\n"
	"rank all\n"
	"  trigger ag\n"
	"  compute 20us\n"
	"  wait ag\n"
	"  trigger ar\n"
	"  trigger bc\n"
	"  dma y y+16K 4K\n"
	"  wait bc\n"
	"  wait ar\n"
	"  trigger p2p\n"
	"  wait p2p\n"
	"rank 2-3\n"
	"  compute 1500ns\n";

static struct ccore_exe *parse_ok(const char *text)
{
	struct ccore_exe *exe;
	int rc = ccore_exe_parse_text("t.txt", text, strlen(text), &exe);

	if (rc)
		FAIL("description rejected: %s", ccore_last_error());
	return exe;
}

static void save_ok(const struct ccore_exe *exe, uint8_t **buf, size_t *len)
{
	if (ccore_exe_save(exe, (void **)buf, len))
		FAIL("save: %s", ccore_last_error());
}

/* The description @text is rejected with @msg in the error. */
static void text_error(const char *text, const char *msg)
{
	struct ccore_exe *exe = NULL;
	int rc = ccore_exe_parse_text("t.txt", text, strlen(text), &exe);

	if (!rc)
		FAIL("accepted; expected \"%s\"", msg);
	ASSERT_EQ(rc, -EINVAL);
	ASSERT_TRUE(exe == NULL);
	ASSERT_STR_CONTAINS(ccore_last_error(), msg);
}

/* The sample with @extra appended is rejected with @msg. */
static void sample_error(const char *extra, const char *msg)
{
	char text[4096];

	snprintf(text, sizeof(text), "%s%s", sample, extra);
	text_error(text, msg);
}

TEST(text_and_bytes_round_trip)
{
	struct ccore_exe *a = parse_ok(sample), *b, *c;
	uint8_t *bytes, *again, *third;
	size_t len, len2, len3;
	char *text;

	save_ok(a, &bytes, &len);
	ASSERT_EQ(ccore_exe_load(bytes, len, &b), 0);
	save_ok(b, &again, &len2);
	ASSERT_EQ(len2, len);
	ASSERT_MEM_EQ(again, bytes, len);
	ASSERT_EQ(ccore_exe_print_text(b, &text), 0);
	c = parse_ok(text);
	save_ok(c, &third, &len3);
	ASSERT_EQ(len3, len);
	ASSERT_MEM_EQ(third, bytes, len);
	/* the dump merges ranks with the same stream */
	ASSERT_STR_CONTAINS(text, "\nrank 0-1\n");
	ASSERT_STR_CONTAINS(text, "\nrank 2-3\n");
	ASSERT_STR_CONTAINS(text, "groups={{0,2},{1,3}}");
	ASSERT_STR_CONTAINS(text, "recv=y+8K groups={{3,2,1,0}}");
	ASSERT_STR_CONTAINS(text, "  compute 1500ns\n");
	free(text);
	free(bytes);
	free(again);
	free(third);
	ccore_exe_free(a);
	ccore_exe_free(b);
	ccore_exe_free(c);
}

TEST(loaded_fields)
{
	struct ccore_exe *a = parse_ok(sample), *b;
	const struct ccore_exe_coll *bc;
	uint8_t *bytes;
	size_t len;

	save_ok(a, &bytes, &len);
	ASSERT_EQ(ccore_exe_load(bytes, len, &b), 0);
	ASSERT_EQ(b->nranks, 4);
	ASSERT_EQ(b->topo.devices_per_node, 2);
	ASSERT_EQ(b->ntensors, 3);
	ASSERT_U64_EQ(b->tensors[1].bytes, 32768);
	ASSERT_EQ(b->tensors[0].init, CCORE_EXE_INIT_PATTERN);
	ASSERT_EQ(b->tensors[0].dtype, ccore_f32);
	ASSERT_EQ(b->tensors[0].redop, ccore_sum);
	ASSERT_EQ(b->ncolls, 4);
	bc = &b->colls[2];
	ASSERT_STR_CONTAINS(bc->name, "bc");
	ASSERT_EQ(bc->op, ccore_op_broadcast);
	ASSERT_EQ(bc->root, 1);
	ASSERT_EQ(bc->stream, 1);
	ASSERT_EQ(bc->recv, 1);
	ASSERT_U64_EQ(bc->recv_offset, 8192);
	ASSERT_EQ(bc->group_count, 1);
	ASSERT_EQ(bc->group_size, 4);
	ASSERT_EQ(bc->ranks[0], 3);
	ASSERT_EQ(bc->ranks[3], 0);
	ASSERT_EQ(b->colls[1].group_count, 2);
	ASSERT_EQ(b->colls[1].ranks[1], 2);
	{
		uint32_t pos = 9;

		ASSERT_EQ(ccore_exe_group_of(&b->colls[1], 3, &pos), 1);
		ASSERT_EQ(pos, 1);
		ASSERT_EQ(ccore_exe_group_of(bc, 0, &pos), 0);
		ASSERT_EQ(pos, 3);
		ASSERT_EQ(ccore_exe_group_of(bc, 4, NULL), -1);
	}
	ASSERT_EQ(b->ranks[0].ninsns, 10);
	ASSERT_EQ(b->ranks[3].ninsns, 11);
	ASSERT_EQ(b->ranks[0].insns[0].op, CCORE_EXE_TRIGGER);
	ASSERT_EQ(b->ranks[0].insns[1].op, CCORE_EXE_COMPUTE);
	ASSERT_U64_EQ(b->ranks[0].insns[1].duration_ns, 20000);
	ASSERT_EQ(b->ranks[0].insns[5].op, CCORE_EXE_DMA);
	ASSERT_U64_EQ(b->ranks[0].insns[5].dst_offset, 16384);
	ASSERT_U64_EQ(b->ranks[0].insns[5].bytes, 4096);
	ASSERT_U64_EQ(b->ranks[3].insns[10].duration_ns, 1500);
	free(bytes);
	ccore_exe_free(a);
	ccore_exe_free(b);
}

TEST(buffer_bytes_per_op)
{
	struct ccore_exe_coll c = { .dtype = ccore_bf16, .count = 100, .group_size = 4 };
	static const struct { uint32_t op; uint64_t send, recv; } want[] = {
		{ ccore_op_allreduce, 200, 200 },	{ ccore_op_allgather, 200, 800 },
		{ ccore_op_reducescatter, 800, 200 },	{ ccore_op_alltoall, 800, 800 },
		{ ccore_op_broadcast, 200, 200 },	{ ccore_op_reduce, 200, 200 },
		{ ccore_op_sendrecv, 200, 200 },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		c.op = want[i].op;
		ASSERT_U64_EQ(ccore_exe_send_bytes(&c), want[i].send);
		ASSERT_U64_EQ(ccore_exe_recv_bytes(&c), want[i].recv);
	}
}

TEST(initial_contents)
{
	struct ccore_exe_tensor z = { .bytes = 16 };
	struct ccore_exe_tensor idx = { .bytes = 16, .init = CCORE_EXE_INIT_INDEX, .dtype = ccore_i32 };
	struct ccore_exe_tensor pat = { .bytes = 64, .init = CCORE_EXE_INIT_PATTERN,
					.dtype = ccore_f32, .redop = ccore_max };
	uint8_t buf[64], want[64];
	int32_t v[4];

	memset(buf, 0x5a, sizeof(buf));
	ccore_exe_fill(&z, 3, buf);
	for (int i = 0; i < 16; i++)
		ASSERT_EQ(buf[i], 0);
	ASSERT_EQ(buf[16], 0x5a);
	ccore_exe_fill(&idx, 2, buf);
	memcpy(v, buf, sizeof(v));
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(v[i], 2 * 4 + i);
	ccore_exe_fill(&pat, 5, buf);
	ccore_verifiable_fill(want, 16, ccore_f32, ccore_max, 5, 0);
	ASSERT_MEM_EQ(buf, want, 64);
	ccore_verifiable_fill(want, 16, ccore_f32, ccore_max, 4, 0);
	ASSERT_TRUE(memcmp(buf, want, 64) != 0);
}

TEST(tensor_rules)
{
	text_error(HEAD "tensor x 0\n", "t.txt:2: tensor 0 (x): bytes 0; allowed 1..1099511627776");
	text_error(HEAD "tensor x 2G\ntensor y 2000G\n", "t.txt:3: tensor 1 (y): bytes 2147483648000");
	text_error(HEAD "tensor x 8\ntensor x 8\n", "t.txt:3: tensor 1 (x): the name is already tensor 0's");
	text_error(HEAD "tensor 9x 8\n", "tensor 0: name '9x' is not valid: 1 to 63 characters");
	text_error(HEAD "tensor x 8 dtype=f32\n", "tensor 0 (x): init zero takes no dtype or redop");
	text_error(HEAD "tensor x 8 init=pattern dtype=f32\n", "init pattern redop 0; allowed 1..5");
	text_error(HEAD "tensor x 8 init=pattern redop=sum\n", "init pattern dtype 0; allowed 1..10");
	text_error(HEAD "tensor x 8 init=index dtype=i32 redop=sum\n", "init index takes no redop");
	text_error(HEAD "tensor x 6 init=index dtype=i32\n", "bytes 6 is not a multiple of its init dtype i32's 4");
}

TEST(collective_rules)
{
	sample_error("collective ag2 allgather dtype=f32 count=2K send=x recv=y+8K groups=all\n",
		     "t.txt:22: collective 4 (ag2): recv tensor 'y' offset 8192 + 32768 bytes exceeds its 32768 bytes");
	sample_error("collective c allreduce dtype=f32 count=4K redop=sum send=x recv=y groups=all\n",
		     "collective 4 (c): send tensor 'x' offset 0 + 16384 bytes exceeds its 8192 bytes");
	sample_error("collective ag allgather dtype=f32 count=1 send=x recv=y groups=all\n",
		     "collective 4 (ag): the name is already collective 0's");
	sample_error("collective c allreduce dtype=f32 count=1 send=x recv=y groups=all\n",
		     "collective 4 (c): allreduce redop 0; allowed 1..5");
	sample_error("collective c allgather dtype=f32 count=1 redop=sum send=x recv=y groups=all\n",
		     "collective 4 (c): allgather takes no redop");
	sample_error("collective c allgather dtype=f32 count=0 send=x recv=y groups=all\n",
		     "collective 4 (c): count 0; allowed 1..");
	sample_error("collective c allgather dtype=f32 count=1 stream=8 send=x recv=y groups=all\n",
		     "collective 4 (c): stream 8; allowed 0..7");
	sample_error("collective c allgather dtype=f32 count=1 send=x recv=y groups={{0,4}}\n",
		     "collective 4 (c): group 0 has rank 4; allowed 0..3");
	sample_error("collective c allgather dtype=f32 count=1 send=x recv=y groups={{0,1},{1,2}}\n",
		     "collective 4 (c): rank 1 is in its groups twice (group 1)");
	sample_error("collective c sendrecv dtype=f32 count=1 send=x recv=y groups={{0,1,2}}\n",
		     "collective 4 (c): sendrecv groups have 3 ranks; allowed 2");
	sample_error("collective c sendrecv dtype=f32 count=1 root=2 send=x recv=y groups={{0,1}}\n",
		     "collective 4 (c): root 2 (the sender's position); allowed 0 or 1");
	sample_error("collective c broadcast dtype=f32 count=1 root=2 send=x recv=y groups={{0,1},{2,3}}\n",
		     "collective 4 (c): root 2; allowed 0..1");
	sample_error("collective c allgather dtype=f32 count=1 root=1 send=x recv=y groups=all\n",
		     "collective 4 (c): allgather takes no root");
	sample_error("collective c allgather dtype=f32 count=1K send=y recv=y groups=all\n",
		     "collective 4 (c): send [0, +4096) and recv [0, +16384) of tensor 'y' overlap");
	sample_error("collective c allreduce dtype=f32 count=1K redop=sum send=y recv=y+4 groups=all\n",
		     "send [0, +4096) and recv [4, +4096) of tensor 'y' overlap");
}

/* What the text description cannot express: through the structs. */
TEST(struct_only_rules)
{
	struct ccore_exe *exe = parse_ok(sample);
	uint32_t line = 99;
	uint8_t *buf;
	size_t len;

	exe->colls[1].op = 9;
	ASSERT_EQ(ccore_exe_validate(exe, &line), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "collective 1 (ar): op 9; allowed 1..7");
	ASSERT_EQ(line, 6);
	/* the saver refuses what does not validate */
	ASSERT_EQ(ccore_exe_save(exe, (void **)&buf, &len), -EINVAL);
	ASSERT_TRUE(buf == NULL);
	exe->colls[1].op = ccore_op_allreduce;
	exe->colls[1].dtype = 11;
	ASSERT_EQ(ccore_exe_validate(exe, NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "collective 1 (ar): dtype 11; allowed 1..10");
	exe->colls[1].dtype = ccore_f32;
	exe->colls[1].send = 7;
	ASSERT_EQ(ccore_exe_validate(exe, NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "collective 1 (ar): send tensor 7 does not exist (3 tensors)");
	exe->colls[1].send = 0;
	exe->tensors[2].init = 7;
	ASSERT_EQ(ccore_exe_validate(exe, NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "tensor 2 (w): init 7; allowed 0 (zero), 1 (pattern), 2 (index)");
	exe->tensors[2].init = CCORE_EXE_INIT_INDEX;
	exe->ranks[1].insns[0].op = 5;
	ASSERT_EQ(ccore_exe_validate(exe, NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "rank 1 instruction 0: op 5; allowed 1..4");
	exe->ranks[1].insns[0].op = CCORE_EXE_TRIGGER;
	exe->ranks[1].insns[0].coll = 4;
	ASSERT_EQ(ccore_exe_validate(exe, NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "rank 1 instruction 0 (trigger): collective 4 does not exist (4 collectives)");
	exe->ranks[1].insns[0].coll = 0;
	exe->topo.nodes = 2;
	ASSERT_EQ(ccore_exe_validate(exe, NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "topology: 2 nodes x 2 devices x 2 ranks per device is 8 ranks, the executable has 4");
	exe->topo.nodes = 1;
	ASSERT_EQ(ccore_exe_validate(exe, NULL), 0);
	ccore_exe_free(exe);
}

TEST(topology_rules)
{
	struct ccore_topology big = { 64, 8, 16 }, wide = { 1, 1, 65 }, zero = { 1, 0, 1 };
	struct ccore_exe *exe;

	ASSERT_EQ(ccore_exe_new(&big, &exe), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "is 8192 ranks; allowed 1..4096");
	ASSERT_EQ(ccore_exe_new(&wide, &exe), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "ranks per device 65; allowed 1..64");
	ASSERT_EQ(ccore_exe_new(&zero, &exe), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "must each be 1 or more");
	text_error("topology nodes=1 devices=1 ranks-per-device=65\n",
		   "t.txt:1: topology: ranks per device 65; allowed 1..64");
}

TEST(instruction_rules)
{
	sample_error("rank 0\n  compute 0ns\n", "t.txt:23: rank 0 instruction 10 (compute): duration 0 ns; allowed 1..10000000000 ns");
	sample_error("rank 0\n  compute 11s\n", "duration 11000000000 ns; allowed 1..");
	sample_error("rank 1\n  dma x y+30K 4K\n", "rank 1 instruction 10 (dma): destination tensor 'y' offset 30720 + 4096 bytes exceeds its 32768 bytes");
	sample_error("rank 1\n  dma x+6K y 4K\n", "rank 1 instruction 10 (dma): source tensor 'x' offset 6144 + 4096 bytes exceeds its 8192 bytes");
	sample_error("rank 1\n  dma x y 0\n", "rank 1 instruction 10 (dma): bytes 0; allowed 1 or more");
	sample_error("rank 1\n  dma y+1K y+2K 2K\n", "source [1024, +2048) and destination [2048, +2048) of tensor 'y' overlap");
}

TEST(trigger_and_wait_rules)
{
	/* rank 0 is in no group of 'q' */
	sample_error("collective q allreduce dtype=f32 count=1 redop=sum send=x recv=y groups={{1,2}}\n"
		     "rank 0\n  trigger q\n",
		     "t.txt:24: rank 0 instruction 10 (trigger): rank 0 is in none of the groups of collective 'q'");
	sample_error("rank 0\n  wait ag\n",
		     "rank 0 instruction 10 (wait): waits for collective 'ag' with no trigger of it before");
	sample_error("rank 0-2\n  trigger ag\n  wait ag\n",
		     "collective 0 (ag): rank 0 triggers it 2 times, rank 3 of the same group (group 0) 1 time;");
	/* two collectives of stream 0 in opposite orders on ranks 0 and 1 */
	text_error(HEAD "tensor x 64\ntensor y 64\n"
		   "collective a allreduce dtype=u8 count=8 redop=sum send=x recv=y groups={{0,1}}\n"
		   "collective b allreduce dtype=u8 count=8 redop=sum send=y recv=x groups={{0,1}}\n"
		   "rank 0\n  trigger a\n  trigger b\n  wait b\n  wait a\n"
		   "rank 1\n  trigger b\n  trigger a\n  wait a\n  wait b\n",
		   "t.txt:9: rank 0 instruction 2 (wait): collective 'b' (triggered at instruction 1) never completes: on stream 0 rank 0 runs 'a' (instruction 0) first, rank 1 of the same group runs 'b' (instruction 0) first");
	/* the same on two streams is fine */
	{
		struct ccore_exe *e = parse_ok(HEAD "tensor x 64\ntensor y 64\n"
			"collective a allreduce dtype=u8 count=8 redop=sum send=x recv=y groups={{0,1}}\n"
			"collective b allreduce dtype=u8 count=8 redop=sum stream=1 send=y recv=x groups={{0,1}}\n"
			"rank 0\n  trigger a\n  trigger b\n  wait b\n  wait a\n"
			"rank 1\n  trigger b\n  trigger a\n  wait a\n  wait b\n");
		ccore_exe_free(e);
	}
	/* a cycle through waits: rank 0 waits for a before triggering b */
	text_error(HEAD "tensor x 64\ntensor y 64\n"
		   "collective a allreduce dtype=u8 count=8 redop=sum send=x recv=y groups={{0,1}}\n"
		   "collective b allreduce dtype=u8 count=8 redop=sum stream=1 send=y recv=x groups={{0,1}}\n"
		   "rank 0\n  trigger a\n  wait a\n  trigger b\n  wait b\n"
		   "rank 1\n  trigger b\n  wait b\n  trigger a\n  wait a\n",
		   "rank 0 instruction 1 (wait): collective 'a' (triggered at instruction 0) never completes: rank 1 of its group has not triggered it: it waits at its instruction 1 for 'b'");
	/* a trigger never waited for still has to complete */
	text_error(HEAD "tensor x 64\ntensor y 64\n"
		   "collective a allreduce dtype=u8 count=8 redop=sum send=x recv=y groups={{0,1}}\n"
		   "collective b allreduce dtype=u8 count=8 redop=sum send=y recv=x groups={{0,1}}\n"
		   "rank 0\n  trigger a\n  trigger b\n"
		   "rank 1\n  trigger b\n  trigger a\n",
		   "t.txt:7: rank 0 instruction 0 (trigger): collective 'a' never completes: on stream 0 rank 0 runs 'a' (instruction 0) first, rank 1 of the same group runs 'b' (instruction 0) first");
}

TEST(text_syntax_errors)
{
	text_error("tensor x 8\n", "t.txt:1: 'tensor' before 'topology'");
	text_error("# only a comment\n", "t.txt: no 'topology' line");
	text_error(HEAD HEAD, "t.txt:2: a second 'topology' line");
	text_error("topology nodes=1 devices=2\n", "t.txt:1: topology: missing ranks-per-device=N");
	text_error("topology nodes=1 devices=2 ranks-per-device=2 colour=red\n", "t.txt:1: unknown key 'colour'; allowed: nodes=N");
	text_error(HEAD "\n\nbogus 1\n", "t.txt:4: unknown statement 'bogus'; allowed: topology, tensor");
	text_error(HEAD "tensor x 8Q\n", "t.txt:2: tensor bytes '8Q': expected a whole number");
	text_error(HEAD "tensor x 8 init=random\n", "t.txt:2: init 'random': expected zero, pattern or index");
	text_error(HEAD "tensor x 8 init=zero init=zero\n", "t.txt:2: key 'init' given twice");
	text_error(HEAD "tensor x 8 dtype=f8\n", "t.txt:2: dtype 'f8': expected one of i8 u8");
	text_error(HEAD "tensor x 8\ncollective c allgather dtype=u8 count=1 send=x recv=z groups=all\n",
		   "t.txt:3: unknown tensor 'z'");
	text_error(HEAD "tensor x 8\ncollective c gather dtype=u8 count=1 send=x recv=x groups=all\n",
		   "t.txt:3: collective op 'gather': expected one of allreduce");
	text_error(HEAD "tensor x 8\ncollective c allgather dtype=u8 send=x recv=x groups=all\n",
		   "t.txt:3: collective 'c': missing count=");
	text_error(HEAD "tensor x 8\ncollective c allgather dtype=u8 count=1 send=x+q recv=x groups=all\n",
		   "t.txt:3: send 'x+q': expected TENSOR or TENSOR+OFFSET");
	text_error(HEAD "tensor x 8\ncollective c allgather dtype=u8 count=1 send=x recv=x groups={{0,1},{2}}\n",
		   "t.txt:3: groups '{{0,1},{2}}': group 1 has 1 ranks, group 0 has 2");
	text_error(HEAD "tensor x 8\ncollective c allgather dtype=u8 count=1 send=x recv=x groups=(0,1)\n",
		   "t.txt:3: groups '(0,1)': expected groups=all or groups={{R,R,...}");
	text_error(HEAD "compute 1us\n", "t.txt:2: 'compute' outside a rank block");
	text_error(HEAD "rank 0-4\n", "t.txt:2: rank 0-4: allowed ranks 0..3");
	text_error(HEAD "rank 2-1\n", "t.txt:2: rank 2-1: allowed ranks 0..3, low to high");
	text_error(HEAD "rank some\n", "t.txt:2: expected 'rank all' or 'rank LIST'");
	text_error(HEAD "rank 0\n  compute 5\n", "t.txt:3: compute '5': expected a duration");
	text_error(HEAD "rank 0\n  compute 5min\n", "t.txt:3: compute '5min': expected a duration");
	text_error(HEAD "rank 0\n  trigger nope\n", "t.txt:3: unknown collective 'nope'");
	text_error(HEAD "rank 0\n  dma a b\n", "t.txt:3: expected 'dma SRC[+OFF] DST[+OFF] BYTES'");
	text_error(HEAD "tensor x 99999999999999999999\n", "t.txt:2: tensor bytes '99999999999999999999'");
	{
		static const char nul[] = "topology nodes=1 devices=1 ranks-per-device=1\n\0tensor";

		struct ccore_exe *e;

		ASSERT_EQ(ccore_exe_parse_text("t.txt", nul, sizeof(nul) - 1, &e), -EINVAL);
		ASSERT_STR_CONTAINS(ccore_last_error(), "t.txt:2: a NUL byte");
	}
}

/* --- bytes ----------------------------------------------------------------- */

static uint8_t *sample_bytes(size_t *len)
{
	struct ccore_exe *exe = parse_ok(sample);
	uint8_t *buf;

	save_ok(exe, &buf, len);
	ccore_exe_free(exe);
	return buf;
}

/* @buf with @v at @off (32 bits) is rejected with @msg. */
static void patched_error(const uint8_t *buf, size_t len, size_t off, uint32_t v, const char *msg)
{
	uint8_t *b = malloc(len);
	struct ccore_exe *exe = NULL;

	memcpy(b, buf, len);
	cce_put32(b + off, v);
	if (!ccore_exe_load(b, len, &exe))
		FAIL("patch at %zu to %u accepted; expected \"%s\"", off, v, msg);
	ASSERT_TRUE(exe == NULL);
	ASSERT_STR_CONTAINS(ccore_last_error(), msg);
	free(b);
}

static size_t section_offset(const uint8_t *buf, int type)
{
	return (size_t)cce_get64(buf + CCE_HDR_SIZE + (type - 1) * CCE_SEC_SIZE + CCE_SEC_OFFSET);
}

TEST(header_and_sections)
{
	size_t len, sec = CCE_HDR_SIZE;
	uint8_t *b = sample_bytes(&len);
	size_t tens = section_offset(b, CCE_SEC_TENSORS), cols = section_offset(b, CCE_SEC_COLLS);
	size_t code = section_offset(b, CCE_SEC_CODE), rnk = section_offset(b, CCE_SEC_RANKS);

	patched_error(b, len, 0, 0x4f524f43, "bad magic; a ccore executable starts with \"CCOREEXE\"");
	patched_error(b, len, CCE_HDR_VMAJOR, 0x00000002, "header version 2.0; this loader reads 1.0 to 1.0");
	patched_error(b, len, CCE_HDR_VMAJOR, 0x00010001, "header version 1.1");
	patched_error(b, len, CCE_HDR_HDRSIZE, 72, "header size 72; allowed 64");
	patched_error(b, len, CCE_HDR_FLAGS, 1, "header flags 0x1 and reserved 0x0; both must be 0");
	patched_error(b, len, CCE_HDR_RESERVED + 4, 1, "reserved 0x100000000");
	patched_error(b, len, CCE_HDR_NRANKS, 8, "header ranks 8, but 1 nodes x 2 devices x 2 ranks per device is 4");
	patched_error(b, len, CCE_HDR_RPD, 0, "must each be 1 or more");
	patched_error(b, len, CCE_HDR_FILESIZE, 1, "header file size 1, but there are");
	patched_error(b, len, CCE_HDR_NSECTIONS, 7, "header section count 7; allowed 6");
	patched_error(b, len, CCE_HDR_SECTAB, 72, "section table offset 72; allowed 64");
	patched_error(b, len, sec + CCE_SEC_TYPE, 2, "section table entry 0: type 2; allowed 1 (strings)");
	patched_error(b, len, sec + CCE_SEC_FLAGS, 4, "section 1 (strings): flags 0x4; must be 0");
	patched_error(b, len, sec + CCE_SEC_SIZE + CCE_SEC_ENTSIZE, 32, "section 2 (tensors): entry size 32; allowed 24");
	patched_error(b, len, sec + CCE_SEC_SIZE + CCE_SEC_COUNT, 2, "section 2 (tensors): 72 bytes is not 2 entries of 24 bytes");
	patched_error(b, len, sec + CCE_SEC_SIZE + CCE_SEC_OFFSET, (uint32_t)tens + 8, "section 2 (tensors): offset");
	patched_error(b, len, sec + CCE_SEC_SIZE + CCE_SEC_OFFSET + 4, 1, "section 2 (tensors): offset 42949");
	patched_error(b, len, sec + 5 * CCE_SEC_SIZE + CCE_SEC_BYTES + 4, 0x10, "section 6 (code): ");
	patched_error(b, len, tens - 4, 0x01000000, "section 2 (tensors): padding byte at");
	patched_error(b, len, section_offset(b, CCE_SEC_STRINGS), 0x78, "section 1 (strings): must start and end with a NUL byte");
	patched_error(b, len, tens + CCE_TEN_NAME, 100000, "tensor 0: name offset 100000; allowed 1..");
	patched_error(b, len, tens + CCE_TEN_NAME, 0, "tensor 0: name offset 0");
	patched_error(b, len, tens + CCE_TEN_BYTES + 4, 0x100, "tensor 0 (x): bytes 1099511635968; allowed 1..1099511627776");
	patched_error(b, len, cols + CCE_COL_RESERVED, 3, "collective 0 (ag): reserved field 0x3; must be 0");
	patched_error(b, len, cols + CCE_COL_FIRSTRANK, 1, "collective 0 (ag): first group rank 1; allowed 0");
	patched_error(b, len, cols + CCE_COL_NGROUPS, 0x40000000, "collective 0 (ag): 1073741824 groups of 4 ranks");
	patched_error(b, len, cols + 3 * CCE_COL_SIZE + CCE_COL_NGROUPS, 1, "section 4 (groups): 16 ranks, the collectives use 14");
	patched_error(b, len, cols + CCE_COL_SENDOFF, 0xffffff00, "collective 0 (ag): send tensor 'x' offset 4294967040 + 8192 bytes exceeds its 8192 bytes");
	patched_error(b, len, rnk + CCE_RNK_FIRST, 1, "rank 0: first instruction 1; allowed 0");
	patched_error(b, len, rnk + CCE_RNK_COUNT, 0xffffffff, "rank 0: 4294967295 instructions; allowed at most 1048576");
	patched_error(b, len, rnk + 3 * CCE_RNK_SIZE + CCE_RNK_COUNT, 10, "section 6 (code): 42 instructions, the ranks use 41");
	patched_error(b, len, code + CCE_INS_OP, 9, "rank 0 instruction 0: op 9; allowed 1..4");
	patched_error(b, len, code + CCE_INS_B, 1, "rank 0 instruction 0 (trigger): a field it does not use is not 0");
	patched_error(b, len, code + CCE_INS_RESERVED, 1, "rank 0 instruction 0 (trigger): a field it does not use is not 0");
	patched_error(b, len, code + CCE_INS_SIZE + CCE_INS_A, 1, "rank 0 instruction 1 (compute): a field it does not use is not 0");
	patched_error(b, len, code + CCE_INS_A, 3, "rank 0 instruction 2 (wait): waits for collective 'ag' with no trigger of it before");
	free(b);
}

TEST(string_table_must_be_canonical)
{
	size_t len;
	uint8_t *b = sample_bytes(&len);
	size_t tens = section_offset(b, CCE_SEC_TENSORS), str = section_offset(b, CCE_SEC_STRINGS);
	uint32_t y = cce_get32(b + tens + CCE_TEN_SIZE + CCE_TEN_NAME);

	/* "x\0y\0w\0": point tensor 0's name into "y" too: duplicate name */
	patched_error(b, len, tens + CCE_TEN_NAME, y, "tensor 1 (y): the name is already tensor 0's");
	/* the same string bytes, but the names read in another order */
	ASSERT_EQ(memcmp(b + str, "\0x\0y\0w\0", 7), 0);
	b[str + 1] = 'y';
	b[str + 3] = 'x';
	cce_put32(b + tens + CCE_TEN_NAME, y);
	cce_put32(b + tens + CCE_TEN_SIZE + CCE_TEN_NAME, 1);
	patched_error(b, len, tens + 2 * CCE_TEN_SIZE + CCE_TEN_NAME, 5, "not in canonical form from byte");
	free(b);
}

TEST(every_truncation_rejected)
{
	size_t len;
	uint8_t *b = sample_bytes(&len);
	struct ccore_exe *exe;

	for (size_t n = 0; n < len; n++) {
		/* a copy of exactly n bytes, so ASan sees any read past it */
		uint8_t *t = malloc(n ? n : 1);

		memcpy(t, b, n);
		if (!ccore_exe_load(t, n, &exe))
			FAIL("a %zu-byte prefix of %zu was accepted", n, len);
		free(t);
	}
	ASSERT_EQ(ccore_exe_load(b, len, &exe), 0);
	ccore_exe_free(exe);
	free(b);
}

TEST(garbled_bytes_rejected_or_round_trip)
{
	size_t len, accepted = 0;
	uint8_t *b = sample_bytes(&len), *t = malloc(len);
	static const uint8_t flips[] = { 0x01, 0x10, 0x80, 0xff };

	for (size_t i = 0; i < len; i++) {
		for (size_t f = 0; f < sizeof(flips); f++) {
			struct ccore_exe *exe;
			uint8_t *again;
			size_t n;

			memcpy(t, b, len);
			t[i] ^= flips[f];
			if (ccore_exe_load(t, len, &exe))
				continue;
			/* accepted: then it is valid and canonical */
			accepted++;
			save_ok(exe, &again, &n);
			ASSERT_EQ(n, len);
			ASSERT_MEM_EQ(again, t, len);
			free(again);
			ccore_exe_free(exe);
		}
	}
	ccore_test_log("%zu of %zu garbled copies were valid executables", accepted, 4 * len);
	ASSERT_LT(accepted, len);
	free(t);
	free(b);
}

TEST(builder_errors)
{
	struct ccore_topology topo = { 1, 1, 2 };
	struct ccore_exe_insn in = { .op = CCORE_EXE_COMPUTE, .duration_ns = 1 };
	struct ccore_exe *exe;

	ASSERT_EQ(ccore_exe_new(&topo, &exe), 0);
	ASSERT_EQ(ccore_exe_add_insn(exe, 2, &in), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "rank 2 out of range (0..1)");
	ASSERT_EQ(ccore_exe_add_insn(exe, 1, &in), 0);
	ASSERT_EQ(ccore_exe_validate(exe, NULL), 0);
	ccore_exe_free(exe);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * The largest tables are checked in O(n log n): 65536 tensors, 4096 ranks
 * in one group (a quadratic check would take minutes here).
 */
TEST(large_tables_validate_quickly)
{
	struct ccore_topology topo = { 64, 8, 8 };
	struct ccore_exe_tensor t = { .bytes = 64 };
	struct ccore_exe_coll c = { .name = "ar", .op = ccore_op_allreduce, .dtype = ccore_u8,
				    .redop = ccore_sum, .count = 8, .group_count = 1,
				    .group_size = 4096 };
	struct ccore_exe_insn trig = { .op = CCORE_EXE_TRIGGER }, wait = { .op = CCORE_EXE_WAIT };
	struct ccore_exe *exe;
	uint32_t ranks[4096];
	uint8_t *buf;
	size_t len;
	double t0;

	ASSERT_EQ(ccore_exe_new(&topo, &exe), 0);
	for (uint32_t i = 0; i < CCORE_EXE_MAX_TENSORS; i++) {
		snprintf(t.name, sizeof(t.name), "t%u", i);
		ASSERT_EQ(ccore_exe_add_tensor(exe, &t), 0);
	}
	ASSERT_EQ(ccore_exe_add_tensor(exe, &t), -E2BIG);
	ASSERT_STR_CONTAINS(ccore_last_error(), "too many tensors: at most 65536 allowed");
	for (uint32_t r = 0; r < 4096; r++)
		ranks[r] = 4095 - r;
	c.ranks = ranks;
	ASSERT_EQ(ccore_exe_add_coll(exe, &c), 0);
	for (uint32_t r = 0; r < 4096; r++) {
		for (int k = 0; k < 8; k++)
			ASSERT_EQ(ccore_exe_add_insn(exe, r, k % 2 ? &wait : &trig), 0);
	}
	t0 = now_s();
	ASSERT_EQ(ccore_exe_save(exe, (void **)&buf, &len), 0);
	ccore_test_log("validated and saved %zu bytes in %.3f s", len, now_s() - t0);
	free(buf);
	/* the last tensor takes the first one's name */
	strcpy(exe->tensors[CCORE_EXE_MAX_TENSORS - 1].name, "t0");
	ASSERT_EQ(ccore_exe_validate(exe, NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "tensor 65535 (t0): the name is already tensor 0's");
	ASSERT_LT(now_s() - t0, 10);
	ccore_exe_free(exe);
}
