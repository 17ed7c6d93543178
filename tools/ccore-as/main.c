// SPDX-License-Identifier: GPL-2.0
/*
 * ccore-as: the CC-core assembler, disassembler and firmware embedder.
 * The build uses it to turn firmware-programs/ into images and into the C
 * table libccore embeds, so it links only runtime/isa, never libccore.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ccore_as.h"
#include "ccore.h"		/* the version macros only: no libccore here */
#include "isa/ccas_isa.h"

#define EXIT_USAGE 2

enum mode { MODE_ASSEMBLE, MODE_DISASSEMBLE, MODE_C_ARRAY };

static const char help_head[] =
	"Usage: ccore-as [-o OUT] FILE.ccs\n"
	"       ccore-as -d [-o OUT] FILE.bin\n"
	"       ccore-as --c-array [-o OUT.c] FILE.ccs...\n"
	"\n"
	"Assemble, disassemble and embed programs for the CC cores of ccore.\n"
	"\n"
	"Modes:\n"
	"  (default)          assemble FILE.ccs into a program image; OUT defaults\n"
	"                     to FILE.bin (FILE '-' reads standard input and then\n"
	"                     needs -o)\n"
	"  -d, --disassemble  print a program image as assembly that assembles back\n"
	"                     to exactly the same bytes (standard output unless -o)\n"
	"      --c-array      assemble every FILE.ccs and write C source defining\n"
	"                     ccore_firmware_blobs[] and ccore_firmware_blob_count\n"
	"                     (see runtime/ccore_firmware.h); each blob is named\n"
	"                     after its file, without directory and \".ccs\"\n"
	"\n"
	"Options:\n"
	"  -o, --output=OUT   write OUT ('-': standard output); the file is written\n"
	"                     under a temporary name and renamed, so a failed run\n"
	"                     leaves no output behind\n"
	"  -h, --help         show this help\n"
	"      --version      print the version and exit\n"
	"\n"
	"Image format: the 4 bytes \"CCPG\", u32 version (1), u32 instruction count,\n"
	"u32 reserved (0), then the 16-byte instructions; all little-endian.\n"
	"\n"
	"Assembly (specified in Documentation/cc-isa.rst): one instruction per line;\n"
	"';' or '#' starts a comment; \"label:\" may precede an instruction or stand\n"
	"alone.  Operands:\n"
	"  SEM    sem(DEV,CORE,IDX) (DEV, CORE 0..255, IDX 0..65535) or trigger,\n"
	"         this CC core's trigger semaphore\n"
	"  RING   ring(ENGINE,RING) (ENGINE 0..255, RING 0..15)\n"
	"  REG    r0..r7\n"
	"  IMM    0..4294967295: decimal, 0x hex or a .equ constant defined above\n"
	"         (constants work wherever a number does)\n"
	"  LABEL  a label on an instruction of the same file; encoded as the offset\n"
	"         from the branching instruction\n"
	"Instructions:\n";

static const char help_tail[] =
	"Directives:\n"
	"  .equ NAME, VALUE\n"
	"         define constant NAME (0..4294967295)\n"
	"  .insn OPCODE, REG, ENGINE, RING, SEM, IMM, TARGET\n"
	"         one raw instruction, field by field (TARGET is signed)\n"
	"\n"
	"Exit status: 0 on success, 1 on an assembly, image or file error (reported\n"
	"as FILE:LINE: what was expected, got what), 2 on a usage error.\n";

static void help(void)
{
	char usage[64];

	fputs(help_head, stdout);
	for (unsigned int op = 0; op < 256; op++) {
		const struct ccas_opinfo *info = ccas_opinfo(op);

		if (!info)
			continue;
		ccas_opinfo_usage(info, usage, sizeof(usage));
		printf("  %-22s opcode 0x%02x\n", usage, op);
	}
	fputs(help_tail, stdout);
}

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("ccore-as: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'ccore-as --help' for more information.\n", stderr);
	return EXIT_USAGE;
}

/* The option getopt_long() rejected: "-x" of a cluster, or the word. */
static int bad_option(const char *why, char **argv)
{
	if (optopt)
		return usage_error("option '-%c' %s", optopt, why);
	return usage_error("option '%s' %s", argv[optind - 1], why);
}

/* How messages name an input. */
static const char *display_name(const char *path)
{
	return strcmp(path, "-") ? path : "<stdin>";
}

/* Assemble @path; on failure print the FILE:LINE message. */
static int assemble_file(const char *path, struct drm_ccore_insn **insns,
			 size_t *count)
{
	char err[512];
	size_t len;
	char *src;
	int ret;

	if (ccore_as_read_file(path, &src, &len))
		return -1;
	/* The assembler reads a C string: a NUL would silently end it. */
	if (memchr(src, '\0', len)) {
		fprintf(stderr, "ccore-as: %s: contains a NUL byte; CC assembly is text\n",
			display_name(path));
		free(src);
		return -1;
	}
	ret = ccas_assemble(src, display_name(path), insns, count, err, sizeof(err));
	free(src);
	if (ret) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return 0;
}

static int write_image(const char *out, const struct drm_ccore_insn *insns,
		       size_t count)
{
	struct ccore_as_out o;

	if (ccore_as_out_open(&o, out))
		return -1;
	if (ccas_write_image(o.f, insns, count)) {
		fprintf(stderr, "ccore-as: %s: write error\n", out);
		ccore_as_out_abort(&o);
		return -1;
	}
	return ccore_as_out_commit(&o);
}

/* FILE.ccs -> FILE.bin, anything else -> anything.bin */
static char *default_output(const char *in)
{
	size_t n = strlen(in);
	char *out = malloc(n + 5);

	if (!out)
		return NULL;
	if (n > 4 && !strcmp(in + n - 4, ".ccs"))
		n -= 4;
	memcpy(out, in, n);
	strcpy(out + n, ".bin");
	return out;
}

static int do_assemble(const char *in, const char *out)
{
	struct drm_ccore_insn *insns;
	char *def = NULL;
	size_t count;
	int ret;

	if (assemble_file(in, &insns, &count))
		return EXIT_FAILURE;
	if (!out) {
		out = def = default_output(in);
		if (!def) {
			free(insns);
			fprintf(stderr, "ccore-as: out of memory\n");
			return EXIT_FAILURE;
		}
	}
	ret = write_image(out, insns, count);
	free(def);
	free(insns);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}

static int do_disassemble(const char *in, const char *out)
{
	struct drm_ccore_insn *insns;
	struct ccore_as_out o;
	char err[256], *text;
	size_t len, count;
	char *bytes;
	int ret;

	if (ccore_as_read_file(in, &bytes, &len))
		return EXIT_FAILURE;
	ret = ccas_read_image(bytes, len, &insns, &count, err, sizeof(err));
	free(bytes);
	if (ret) {
		fprintf(stderr, "ccore-as: %s: %s\n", display_name(in), err);
		return EXIT_FAILURE;
	}
	text = ccas_disassemble(insns, count);
	free(insns);
	if (!text) {
		fprintf(stderr, "ccore-as: out of memory\n");
		return EXIT_FAILURE;
	}
	ret = ccore_as_out_open(&o, out ? out : "-");
	if (!ret) {
		fprintf(o.f, "; %s: %zu instructions, disassembled by ccore-as -d\n",
			display_name(in), count);
		fputs(text, o.f);
		ret = ccore_as_out_commit(&o);
	}
	free(text);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}

static int do_c_array(char **in, size_t n, const char *out)
{
	struct ccore_as_prog *progs = calloc(n, sizeof(*progs));
	struct ccore_as_out o;
	int ret = -1;
	size_t i;

	if (!progs) {
		fprintf(stderr, "ccore-as: out of memory\n");
		return EXIT_FAILURE;
	}
	for (i = 0; i < n; i++) {
		progs[i].path = in[i];
		if (assemble_file(in[i], &progs[i].insns, &progs[i].count))
			goto out;
	}
	if (ccore_as_out_open(&o, out ? out : "-"))
		goto out;
	if (ccore_as_write_c_array(o.f, progs, n)) {
		ccore_as_out_abort(&o);
		goto out;
	}
	ret = ccore_as_out_commit(&o);
out:
	for (size_t j = 0; j < n; j++)
		free(progs[j].insns);
	free(progs);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}

static int check_inputs(enum mode mode, int nin, const char *out,
			char **in)
{
	if (nin == 0)
		return usage_error("no input file given");
	if (mode != MODE_C_ARRAY && nin > 1)
		return usage_error("one input file expected, got also '%s' (only --c-array takes several)",
				   in[1]);
	if (mode == MODE_ASSEMBLE && !out && !strcmp(in[0], "-"))
		return usage_error("assembling standard input needs -o OUT");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "disassemble", no_argument, NULL, 'd' },
		{ "c-array", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	enum mode mode = MODE_ASSEMBLE;
	const char *out = NULL;
	int c, ret;

	opterr = 0;	/* our own messages, with the exit status we document */
	while ((c = getopt_long(argc, argv, ":o:dh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'd':
		case 'C':
			if (mode != MODE_ASSEMBLE)
				return usage_error("-d and --c-array exclude each other");
			mode = c == 'd' ? MODE_DISASSEMBLE : MODE_C_ARRAY;
			break;
		case 'h':
			help();
			return EXIT_SUCCESS;
		case 'V':
			printf("ccore-as (ccore) %s\n", CCORE_VERSION_STRING);
			return EXIT_SUCCESS;
		case ':':
			return bad_option("needs an argument", argv);
		default:
			return bad_option("is unknown", argv);
		}
	}
	ret = check_inputs(mode, argc - optind, out, argv + optind);
	if (ret)
		return ret;
	switch (mode) {
	case MODE_DISASSEMBLE:
		return do_disassemble(argv[optind], out);
	case MODE_C_ARRAY:
		return do_c_array(argv + optind, (size_t)(argc - optind), out);
	default:
		return do_assemble(argv[optind], out);
	}
}
